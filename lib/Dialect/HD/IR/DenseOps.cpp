//===- DenseOps.cpp - the fully-connected layers: flatten, linear ---------===//
//
// The classifier at the end of a CNN: flatten lays each sample's feature
// maps out as one feature vector, and linear reads every feature of its
// samples, so a split of its outputs replicates its input.
//
//===----------------------------------------------------------------------===//

#include "OpVerification.h"

using namespace mlir;
using namespace hd;
using namespace hd::detail;

//===----------------------------------------------------------------------===//
// LinearOp
//===----------------------------------------------------------------------===//

LogicalResult LinearOp::verify() {
  if (failed(checkTensor(*this, getInput(), "input", {2}, "2-D NxF")) ||
      failed(checkTensor(*this, getOutput(), "output", {2}, "2-D NxK")))
    return failure();
  // I64Attr getters return uint64_t: compare as signed.
  int64_t k = getOutFeatures();
  if (k < 1)
    return emitOpError("out_features must be >= 1");
  ArrayRef<int64_t> in = shapeOf(getInput());
  if (failed(checkOutputShape(*this, {in[0], k})))
    return failure();
  return checkCounts(*this, __int128(k) * (in[1] + 1),
                     2 * __int128(in[0]) * k * in[1]);
}

TileBox LinearOp::getInputBox(unsigned, const TileBox &out) {
  if (out.empty())
    return TileBox({{0, 0}, {0, 0}});
  return TileBox({out[0], {0, shapeOf(getInput())[1]}});
}

int64_t LinearOp::getParameterCount() {
  int64_t k = getOutFeatures();
  return k * shapeOf(getInput())[1] + (getBias() ? k : 0);
}

int64_t LinearOp::getForwardFlops() {
  int64_t outputs = numElements(shapeOf(getOutput()).vec());
  return 2 * outputs * shapeOf(getInput())[1] + (getBias() ? outputs : 0);
}

//===----------------------------------------------------------------------===//
// FlattenOp
//===----------------------------------------------------------------------===//

LogicalResult FlattenOp::verify() {
  if (failed(checkTensor(*this, getInput(), "input", {4}, "4-D NxCxHxW")) ||
      failed(checkTensor(*this, getOutput(), "output", {2}, "2-D NxF")))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput());
  return checkOutputShape(*this, {in[0], in[1] * in[2] * in[3]});
}

TileBox FlattenOp::getInputBox(unsigned, const TileBox &out) {
  ArrayRef<int64_t> in = shapeOf(getInput());
  if (out.empty())
    return TileBox({{0, 0}, {0, 0}, {0, 0}, {0, 0}});
  int64_t plane = in[2] * in[3];
  Range channels{out[1].lo / plane, (out[1].hi + plane - 1) / plane};
  return TileBox({out[0], channels, {0, in[2]}, {0, in[3]}});
}

int64_t FlattenOp::getForwardFlops() { return 0; }
