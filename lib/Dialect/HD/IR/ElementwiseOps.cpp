//===- ElementwiseOps.cpp - verifiers of the elementwise layers -----------===//
//
// ReLU, dropout, add, the activations and the binary functions (of two
// activations, or of one and the layer's per-channel tensor): layers that
// keep their input's shape, split along any dimension.
//
//===----------------------------------------------------------------------===//

#include "OpVerification.h"

#include <cmath>

using namespace mlir;
using namespace hd;
using namespace hd::detail;

//===----------------------------------------------------------------------===//
// Elementwise layers
//===----------------------------------------------------------------------===//

LogicalResult ReluOp::verify() {
  return checkElementwise(*this, getInput(), "input");
}

LogicalResult DropoutOp::verify() {
  if (failed(checkElementwise(*this, getInput(), "input")))
    return failure();
  double ratio = getRatio().convertToDouble();
  if (!(ratio >= 0.0 && ratio < 1.0))
    return emitOpError() << "ratio " << numStr(ratio) << " must be in [0, 1)";
  return success();
}

LogicalResult AddOp::verify() {
  return checkElementwise(*this, getLhs(), "operands");
}

LogicalResult ActivationOp::verify() {
  if (failed(checkElementwise(*this, getInput(), "input")))
    return failure();
  double alpha = getAlpha().convertToDouble();
  double beta = getBeta().convertToDouble();
  if (!std::isfinite(alpha) || !std::isfinite(beta))
    return emitOpError("alpha and beta must be finite");
  switch (getFunction()) {
  case ActivationFunction::Clip:
    if (!(alpha <= beta))
      return emitOpError() << "clip's alpha " << numStr(alpha)
                           << " (its minimum) exceeds its beta "
                           << numStr(beta) << " (its maximum)";
    return success();
  case ActivationFunction::HardSigmoid:
    if (!(alpha > 0))
      return emitOpError() << "hardsigmoid's alpha " << numStr(alpha)
                           << " must be positive";
    return success();
  default:
    if (alpha != 0 || beta != 0)
      return emitOpError() << stringifyActivationFunction(getFunction())
                           << " takes no alpha or beta";
    return success();
  }
}

LogicalResult BinaryOp::verify() {
  if (failed(checkElementwise(*this, getLhs(), "lhs")))
    return failure();
  ArrayRef<int64_t> lhs = shapeOf(getLhs()), rhs = shapeOf(getRhs());
  if (rhs == lhs || perChannel(lhs, rhs))
    return success();
  return emitOpError() << "rhs of shape " << shapeStr(rhs)
                       << " must be the lhs's shape " << shapeStr(lhs)
                       << " or, for a 4-D lhs, N x C x 1 x 1";
}

TileBox BinaryOp::getInputBox(unsigned operandIndex, const TileBox &out) {
  TileBox box = out;
  if (operandIndex == 1 && isBroadcast() && !out.empty())
    box[2] = box[3] = {0, 1};
  return box;
}

LogicalResult ChannelBinaryOp::verify() {
  return checkElementwise(*this, getInput(), "input");
}

int64_t ChannelBinaryOp::getParameterCount() {
  // A frozen operand has no gradient: nothing to sync or update.
  return getFrozen() ? 0 : shapeOf(getInput())[1];
}
