//===- Attributes.h - reading ONNX attributes and constants -----*- C++ -*-===//
//
// ONNX stores a node's settings as typed attributes and small inputs (pads,
// ratios) as constant tensors in several encodings. These readers give the
// patterns plain values and treat a wrong type like an absent attribute;
// checkAttributeTypes, run before any pattern, turns a present attribute of
// the wrong type into an error, so it is never read as its default.
//
//===----------------------------------------------------------------------===//

#ifndef HD_LIB_IMPORT_ONNX_ATTRIBUTES_H
#define HD_LIB_IMPORT_ONNX_ATTRIBUTES_H

#include "Shape.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>

namespace hd::onnx_import {

class ImportContext;

/// The attribute `name` of `node`, of any type; null when absent.
const onnx::AttributeProto *findAttr(const onnx::NodeProto &node,
                                     llvm::StringRef name);

/// The value of an INT, FLOAT or INTS attribute; nullopt when it is absent
/// (or has another type).
std::optional<int64_t> intAttr(const onnx::NodeProto &node,
                               llvm::StringRef name);
std::optional<float> floatAttr(const onnx::NodeProto &node,
                               llvm::StringRef name);
std::optional<Shape> intsAttr(const onnx::NodeProto &node,
                              llvm::StringRef name);

/// The value of a STRING attribute, or `dflt` when it is absent.
std::string stringAttr(const onnx::NodeProto &node, llvm::StringRef name,
                       llvm::StringRef dflt);

/// Values of an integer tensor (int64 or int32, raw or typed storage);
/// nullopt for another element type or a ragged raw size.
std::optional<Shape> tensorInts(const onnx::TensorProto &t);

/// The single value of a scalar float (or double) tensor.
std::optional<double> tensorScalar(const onnx::TensorProto &t);

/// Shape of a declared value; -1 for symbolic or unknown dims.
std::optional<Shape> declaredShape(const onnx::ValueInfoProto &info);

/// The shortest decimal that reads back as the same float: 1e-5f becomes
/// 1e-5, not 9.99999974e-6, so the IR shows what the model's author wrote.
double asDecimal(double f);

/// The explicit [top, left, bottom, right] `pads` of a 2-D window (kernel,
/// stride, dilation per spatial dim) over the spatial dims `in` of an NCHW
/// input, once the node's `auto_pad` (SAME_UPPER, SAME_LOWER, VALID or
/// NOTSET, which keeps `pads`) is applied. Fails, reporting why, on an
/// unknown auto_pad or, with `rangeError`, on a window value outside
/// [1, 2^31].
mlir::LogicalResult applyAutoPad(const onnx::NodeProto &node,
                                 ImportContext &ctx, llvm::ArrayRef<int64_t> in,
                                 llvm::ArrayRef<int64_t> kernel,
                                 llvm::ArrayRef<int64_t> stride,
                                 llvm::ArrayRef<int64_t> dilation,
                                 llvm::StringRef rangeError, Shape &pads);

/// The axes a ReduceMean averages: an attribute, or (opset 18) a constant
/// input; fails, reporting why, when that input is not a constant.
mlir::FailureOr<Shape> getReduceAxes(const onnx::NodeProto &node,
                                     ImportContext &ctx);

/// Fails, reporting the first one, when an attribute hd reads is present
/// with another type than hd expects.
mlir::LogicalResult checkAttributeTypes(const onnx::NodeProto &node,
                                        ImportContext &ctx);

} // namespace hd::onnx_import

#endif // HD_LIB_IMPORT_ONNX_ATTRIBUTES_H
