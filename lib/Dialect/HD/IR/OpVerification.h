//===- OpVerification.h - what the layer verifiers share --------*- C++ -*-===//
//
// Shapes as text, the size limits every layer obeys, and the checks of a
// tensor's rank and size; used by the verifiers of every op family's file
// (WindowOps.cpp, DenseOps.cpp, NormalizationOps.cpp, ElementwiseOps.cpp,
// LayoutOps.cpp, TransferOps.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef HD_LIB_DIALECT_HD_IR_OPVERIFICATION_H
#define HD_LIB_DIALECT_HD_IR_OPVERIFICATION_H

#include "hd/Dialect/HD/IR/HDOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

#include <cstdio>
#include <string>

namespace hd::detail {

using namespace mlir;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

inline ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// Shortest readable form of a double attribute: 1.5, not 1.500000e+00.
inline std::string numStr(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

inline std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

/// Tensors above this many elements are rejected: FLOP and byte counts of
/// their layers would overflow int64 long before such a tensor could exist.
constexpr int64_t kMaxElements = int64_t(1) << 40;

/// A layer's parameter and FLOP counts must be representable: products of
/// sizes that are each bounded can still overflow int64.
inline LogicalResult checkCounts(Operation *op, __int128 params,
                                 __int128 flops) {
  if (params > kMaxElements)
    return op->emitOpError() << "has more than 2^40 parameters";
  if (flops > (__int128(1) << 62))
    return op->emitOpError() << "needs more than 2^62 FLOPs";
  return success();
}

/// A static tensor of one of the allowed ranks, of a size hd can count.
inline LogicalResult checkTensor(Operation *op, Value v, StringRef role,
                                 ArrayRef<int64_t> ranks, StringRef layout) {
  auto type = cast<RankedTensorType>(v.getType());
  if (!llvm::is_contained(ranks, type.getRank()) || !type.hasStaticShape())
    return op->emitOpError() << role << " must be a static " << layout
                             << " tensor, got " << type;
  int64_t elements = 1;
  for (int64_t d : type.getShape()) {
    if (d == 0 || elements > kMaxElements / d)
      return op->emitOpError()
             << role << " " << type << " must have between 1 and 2^40 "
             << "elements";
    elements *= d;
  }
  return success();
}

inline LogicalResult checkOutputShape(Operation *op,
                                      ArrayRef<int64_t> expected) {
  ArrayRef<int64_t> actual = shapeOf(op->getResult(0));
  if (actual != expected)
    return op->emitOpError() << "output shape " << shapeStr(actual)
                             << " does not match the expected "
                             << shapeStr(expected);
  return success();
}

/// An elementwise layer's operand: 2-D N x F or 4-D N x C x H x W.
inline LogicalResult checkElementwise(Operation *op, Value v, StringRef role) {
  return checkTensor(op, v, role, {2, 4}, "2-D NxF or 4-D NxCxHxW");
}

} // namespace hd::detail

#endif // HD_LIB_DIALECT_HD_IR_OPVERIFICATION_H
