//===- Shape.h - shapes as the ONNX importer computes them ------*- C++ -*-===//
//
// hd computes every shape itself from the input shape and each layer's
// attributes, and ONNX files are untrusted input: one limit on dims keeps that
// arithmetic (and the cost model's byte counts downstream) free of overflow,
// and one printed form keeps the importer's messages consistent.
//
//===----------------------------------------------------------------------===//

#ifndef HD_LIB_IMPORT_ONNX_SHAPE_H
#define HD_LIB_IMPORT_ONNX_SHAPE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace hd::onnx_import {

using Shape = llvm::SmallVector<int64_t, 4>;

/// Dims above this are rejected: they overflow the cost model's byte counts
/// long before they could be real.
constexpr int64_t kMaxDim = int64_t(1) << 31;

/// Whether an attribute value is one hd's window arithmetic handles without
/// overflow: at least `lo` and at most kMaxDim.
inline bool inRange(int64_t v, int64_t lo) { return v >= lo && v <= kMaxDim; }

/// A Slice or Shape bound `i` on a dim of `size`, as ONNX reads it: counted
/// from the end when negative, then clamped to [0, size].
inline int64_t clampIndex(int64_t i, int64_t size) {
  if (i < 0)
    i += size;
  return i < 0 ? 0 : (i > size ? size : i);
}

/// "2x3x4x5", as messages print a shape.
inline std::string shapeStr(llvm::ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

/// The static shape of an imported value (every value hd defines is a ranked
/// tensor).
inline Shape shapeOf(mlir::Value v) {
  return Shape(llvm::cast<mlir::RankedTensorType>(v.getType()).getShape());
}

} // namespace hd::onnx_import

#endif // HD_LIB_IMPORT_ONNX_SHAPE_H
