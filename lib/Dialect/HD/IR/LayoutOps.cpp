//===- LayoutOps.cpp - layers that move channels: concat, slice, shuffle --===//
//
// Inception's channel concat, and ShuffleNet's channel split and channel
// shuffle. All three copy data without computing on it; what sets them
// apart is which input channels an output tile reads.
//
//===----------------------------------------------------------------------===//

#include "OpVerification.h"

using namespace mlir;
using namespace hd;
using namespace hd::detail;

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  if (failed(checkTensor(*this, getOutput(), "output", {2, 4},
                         "2-D NxF or 4-D NxCxHxW")))
    return failure();
  ArrayRef<int64_t> out = shapeOf(getOutput());
  int64_t channels = 0;
  for (auto [i, v] : llvm::enumerate(getInputs())) {
    if (failed(checkTensor(*this, v, "every input", {2, 4},
                           "2-D NxF or 4-D NxCxHxW")))
      return failure();
    ArrayRef<int64_t> in = shapeOf(v);
    if (in.size() != out.size())
      return emitOpError() << "input #" << i << " has rank " << in.size()
                           << " but the output has rank " << out.size();
    for (unsigned d = 0; d < in.size(); ++d)
      if (d != 1 && in[d] != out[d])
        return emitOpError() << "input #" << i << " has shape "
                             << shapeStr(in) << "; all dims but dim 1 must "
                             << "match the output " << shapeStr(out);
    channels += in[1];
  }
  if (channels != out[1])
    return emitOpError() << "output has " << out[1]
                         << " channels but the inputs sum to " << channels;
  return success();
}

TileBox ConcatOp::getInputBox(unsigned operandIndex, const TileBox &out) {
  int64_t offset = 0;
  for (unsigned i = 0; i < operandIndex; ++i)
    offset += shapeOf(getInputs()[i])[1];
  int64_t channels = shapeOf(getInputs()[operandIndex])[1];
  TileBox box = out;
  Range mine = intersect(out[1], {offset, offset + channels});
  box[1] = {mine.lo - offset, mine.hi - offset};
  return box;
}

//===----------------------------------------------------------------------===//
// SliceOp and ChannelShuffleOp
//===----------------------------------------------------------------------===//

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
