//===- LayoutOps.cpp - layers that move channels: slice, shuffle ----------===//
//
// ShuffleNet's channel split and channel shuffle. Both copy data without
// computing on it; what sets them apart is which input channels an output
// tile reads.
//
//===----------------------------------------------------------------------===//

#include "OpVerification.h"

using namespace mlir;
using namespace hd;
using namespace hd::detail;

LogicalResult SliceOp::verify() {
  if (failed(checkElementwise(*this, getInput(), "input")) ||
      failed(checkElementwise(*this, getOutput(), "output")))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput()), out = shapeOf(getOutput());
  if (in.size() != out.size())
    return emitOpError() << "output rank " << out.size()
                         << " differs from the input's " << in.size();
  for (unsigned d = 0; d < in.size(); ++d)
    if (d != 1 && in[d] != out[d])
      return emitOpError() << "output shape " << shapeStr(out)
                           << " differs from the input's " << shapeStr(in)
                           << " outside dim 1";
  int64_t offset = getOffset();
  if (offset < 0 || offset > in[1] - out[1])
    return emitOpError() << "channels [" << offset << ", " << offset + out[1]
                         << ") lie outside the input's " << in[1];
  return success();
}

TileBox SliceOp::getInputBox(unsigned, const TileBox &out) {
  TileBox box = out;
  int64_t offset = getOffset();
  box[1] = {out[1].lo + offset, out[1].hi + offset};
  return box;
}

LogicalResult ChannelShuffleOp::verify() {
  if (failed(checkTensor(*this, getInput(), "input", {4}, "4-D NxCxHxW")))
    return failure();
  int64_t groups = getGroups(), channels = shapeOf(getInput())[1];
  if (groups < 1 || channels % groups != 0)
    return emitOpError() << "groups " << groups << " must be positive and "
                         << "divide the " << channels << " channels";
  return success();
}

SplitRule ChannelShuffleOp::getSplitRule() {
  SplitRule rule;
  rule.splittableDims = 0xF & ~(1u << 1);
  return rule;
}
