//===- NormalizationOps.cpp - layers whose tasks share statistics ---------===//
//
// Batch norm, layer norm and the softmax cross-entropy loss each reduce
// over a dimension a configuration may split: tasks that hold parts of one
// slice combine their statistics (getSharedStatistics), which the cost
// model prices and the runtime performs. The elementwise layers are in
// ElementwiseOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "OpVerification.h"

using namespace mlir;
using namespace hd;
using namespace hd::detail;

//===----------------------------------------------------------------------===//
// BatchNormOp
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::verify() {
  if (failed(checkTensor(*this, getInput(), "input", {4}, "4-D NxCxHxW")))
    return failure();
  if (!(getEpsilon().convertToDouble() > 0.0))
    return emitOpError("epsilon must be positive");
  double m = getMomentum().convertToDouble();
  if (!(m >= 0.0 && m <= 1.0))
    return emitOpError() << "momentum " << numStr(m) << " must be in [0, 1]";
  return success();
}

SharedStatistics BatchNormOp::getSharedStatistics() {
  // Per channel, the sum and the sum of squares (forward), then the sums
  // of the gradient and of its product with the input (backward); the
  // model counts each pair as two floats.
  return {/*perDims=*/1u << 1, /*bytesPerIndex=*/8, /*rounds=*/2};
}

int64_t BatchNormOp::getParameterCount() {
  return 2 * shapeOf(getInput())[1];
}

int64_t BatchNormOp::getForwardFlops() {
  // Per element: sum and sum of squares (3), normalize and scale-shift (4).
  return 7 * numElements(shapeOf(getInput()).vec());
}

//===----------------------------------------------------------------------===//
// LayerNormOp
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::verify() {
  if (failed(checkTensor(*this, getInput(), "input", {4}, "4-D NxCxHxW")))
    return failure();
  if (!(getEpsilon().convertToDouble() > 0.0))
    return emitOpError("epsilon must be positive");
  return success();
}

SharedStatistics LayerNormOp::getSharedStatistics() {
  // Per pixel, the sum and the sum of squares over its channels (forward),
  // then of the scaled gradient and its product with the normalized input
  // (backward): a reduction across the tasks that split the channels.
  return {/*perDims=*/(1u << 0) | (1u << 2) | (1u << 3), /*bytesPerIndex=*/8,
          /*rounds=*/2};
}

int64_t LayerNormOp::getParameterCount() {
  return 2 * shapeOf(getInput())[1];
}

int64_t LayerNormOp::getForwardFlops() {
  // As batch norm: sums (3), normalize and scale-shift (4) per element.
  return 7 * numElements(shapeOf(getInput()).vec());
}

//===----------------------------------------------------------------------===//
// SoftmaxCrossEntropyOp
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxCrossEntropyOp::verify() {
  if (failed(checkTensor(*this, getLogits(), "logits", {2}, "2-D NxK")) ||
      failed(checkTensor(*this, getLabels(), "labels", {1}, "1-D N")))
    return failure();
  int64_t n = shapeOf(getLogits())[0], labels = shapeOf(getLabels())[0];
  if (n != labels)
    return emitOpError() << "has " << labels << " labels for a batch of "
                         << n << " logits";
  return success();
}

ArrayRef<int64_t> SoftmaxCrossEntropyOp::getPartitionedShape() {
  return shapeOf(getLogits());
}

TileBox SoftmaxCrossEntropyOp::getInputBox(unsigned operandIndex,
                                           const TileBox &out) {
  if (operandIndex == 0)
    return out;
  return TileBox({out.empty() ? Range{0, 0} : out[0]});
}

SharedStatistics SoftmaxCrossEntropyOp::getSharedStatistics() {
  // Per sample, the maximum and then the sum of exponentials over the
  // classes: two all-reduces of one float each.
  return {/*perDims=*/1u << 0, /*bytesPerIndex=*/4, /*rounds=*/2};
}

int64_t SoftmaxCrossEntropyOp::getForwardFlops() {
  // Per logit: max, subtract, exp and sum.
  return 4 * numElements(shapeOf(getLogits()).vec());
}

