//===- Messages.h - the ONNX fields hd reads and writes ---------*- C++ -*-===//
//
// Field numbers from onnx.proto (ONNX 1.12), in one place for the reader
// (Weights.cpp) and the writer (Export.cpp); every other field is skipped
// when read and copied byte for byte when written. The writer finds each
// initializer's name with the reader's own readTensor, so the two agree on
// what a tensor is, and counts a tensor's elements the same way.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_ONNX_MESSAGES_H
#define HDRT_ONNX_MESSAGES_H

#include "hdrt/onnx/Weights.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hdrt::onnx {

namespace model {
constexpr uint32_t kGraph = 7;
} // namespace model

namespace graph {
constexpr uint32_t kInitializer = 5;
constexpr uint32_t kInput = 11;
} // namespace graph

namespace tensor {
constexpr uint32_t kDims = 1;
constexpr uint32_t kDataType = 2;
constexpr uint32_t kFloatData = 4;
constexpr uint32_t kInt32Data = 5;
constexpr uint32_t kStringData = 6;
constexpr uint32_t kInt64Data = 7;
constexpr uint32_t kName = 8;
constexpr uint32_t kRawData = 9;
constexpr uint32_t kDoubleData = 10;
constexpr uint32_t kUint64Data = 11;
constexpr uint32_t kExternalData = 13;
constexpr uint32_t kDataLocation = 14;
/// TensorProto.DataLocation.EXTERNAL.
constexpr uint64_t kExternal = 1;
} // namespace tensor

namespace value_info {
constexpr uint32_t kName = 1;
constexpr uint32_t kType = 2;
} // namespace value_info

namespace type {
/// TypeProto's `value` oneof: tensor_type, and the members that replace it.
constexpr uint32_t kTensorType = 1;
constexpr uint32_t kOtherValues[] = {4 /*sequence*/, 5 /*map*/, 7 /*opaque*/,
                                     8 /*sparse tensor*/, 9 /*optional*/};
/// TypeProto.Tensor.
constexpr uint32_t kElemType = 1;
constexpr uint32_t kShape = 2;
/// TensorShapeProto and its Dimension.
constexpr uint32_t kDim = 1;
constexpr uint32_t kDimValue = 1;
constexpr uint32_t kDimParam = 2;
} // namespace type

/// The element count of `dims` (all non-negative), or UINT64_MAX when it
/// overflows: no data can match that.
uint64_t volumeOf(const std::vector<int64_t> &dims);

/// Reads one TensorProto's bytes [begin, end) of the file at `origin` into
/// `tensor` (name, type, dims and, for FLOAT, its data), with every check
/// readGraph makes.
bool readTensor(const uint8_t *begin, const uint8_t *end, const uint8_t *origin,
                Tensor &tensor, std::string &error);

} // namespace hdrt::onnx

#endif // HDRT_ONNX_MESSAGES_H
