//===- LayoutPatterns.cpp - ONNX Reshape, Transpose, Slice, Split ---------===//
//
// hd's activations are N x C x H x W (or N x F); these nodes change the
// layout, and hd imports the layouts today's CNNs use:
// - Reshape to N x -1 (a Flatten), or to the same shape;
// - ShuffleNet's channel shuffle, Reshape to N x g x C/g x H x W, Transpose
//   of dims 1 and 2, Reshape back, as one hd.channel_shuffle;
// - ConvNeXt's Transpose to channels-last and back: no IR, the
//   channels-last value stands for its N x C x H x W source, and the
//   patterns that read one (ChannelsLastPatterns.cpp) compute on the
//   source;
// - the Transpose of a 2-D parameter, a MatMul's weight;
// - Slice and Split along the channels, as hd.slice.
// Reshape targets and slice bounds are constants once shape arithmetic is
// folded (ShapeArithmetic.cpp).
//
//===----------------------------------------------------------------------===//

#include "Attributes.h"
#include "Patterns.h"

#include "hd/Dialect/HD/IR/HDOps.h"

using namespace mlir;

namespace hd::onnx_import {

/// The integer constant input #index of `node`; reports when it is not one.
static FailureOr<Shape> constantInts(const onnx::NodeProto &node,
                                     ImportContext &ctx, int index,
                                     StringRef role) {
  const onnx::TensorProto *t =
      index < node.input_size() ? ctx.lookupConstant(node.input(index))
                                : nullptr;
  std::optional<Shape> ints = t ? tensorInts(*t) : std::nullopt;
  if (!ints)
    return ctx.fail(node) << "input " << role
                          << " must be an integer constant (or shape "
                             "arithmetic hd folds)";
  return *ints;
}

/// Input #index as constantInts reads it, or `dflt` when the node omits it.
static FailureOr<Shape> optionalInts(const onnx::NodeProto &node,
                                     ImportContext &ctx, int index,
                                     StringRef role, Shape dflt) {
  if (index >= node.input_size() || node.input(index).empty())
    return dflt;
  return constantInts(node, ctx, index, role);
}

/// Reshape's target with 0 (copy the input's dim) and -1 (the rest)
/// resolved; fails when it does not hold the input's elements.
static FailureOr<Shape> reshapeTarget(const onnx::NodeProto &node,
                                      ImportContext &ctx, ArrayRef<int64_t> in,
                                      Shape target) {
  bool allowZero = intAttr(node, "allowzero").value_or(0) != 0;
  int64_t elements = 1, known = 1;
  for (int64_t d : in)
    elements *= d;
  int inferred = -1;
  for (auto [i, d] : llvm::enumerate(target)) {
    if (d == 0 && !allowZero) {
      if (i >= in.size())
        return ctx.fail(node) << "target dim " << i << " copies an input dim "
                              << "that does not exist";
      d = in[i];
    }
    if (d == -1 && inferred < 0) {
      inferred = int(i);
      continue;
    }
    if (!inRange(d, 1) || __builtin_mul_overflow(known, d, &known))
      return ctx.fail(node) << "target shape [" << target
                            << "] has an unsupported dim";
  }
  if (inferred >= 0 && elements % known == 0)
    target[inferred] = elements / known;
  else if (inferred >= 0 || known != elements)
    return ctx.fail(node) << "cannot reshape " << shapeStr(in) << " to ["
                          << target << "]";
  return target;
}

static LogicalResult importReshape(const onnx::NodeProto &node,
                                   ImportContext &ctx) {
  FailureOr<Shape> rawTarget = constantInts(node, ctx, 1, "shape");
  if (failed(rawTarget))
    return failure();
  OpBuilder &b = ctx.getBuilder();
  // The end of a channel shuffle.
  if (const PendingShuffle *shuffle =
          node.input_size() > 0 ? ctx.lookupPendingShuffle(node.input(0))
                                : nullptr) {
    // The target's 0s copy the dims of the transposed 5-D view.
    Shape in = shapeOf(shuffle->input);
    Shape view = {in[0], in[1] / shuffle->groups, shuffle->groups, in[2],
                  in[3]};
    FailureOr<Shape> target = reshapeTarget(node, ctx, view, *rawTarget);
    if (failed(target))
      return failure();
    if (!shuffle->transposed || *target != in)
      return ctx.fail(node) << "hd supports a 5-D view only in a channel "
                               "shuffle (Reshape, Transpose of dims 1 and 2, "
                               "Reshape back to N x C x H x W)";
    ctx.defineOutput(node, ChannelShuffleOp::create(
                               b, ctx.getLoc(node), shuffle->input,
                               shuffle->groups, /*parallel=*/nullptr));
    return success();
  }
  FailureOr<Value> x = ctx.getActivation(node, 0);
  if (failed(x))
    return failure();
  Shape in = shapeOf(*x);
  FailureOr<Shape> target = reshapeTarget(node, ctx, in, *rawTarget);
  if (failed(target))
    return failure();
  const Shape &t = *target;
  if (t == in) {
    ctx.defineOutput(node, *x);
    return success();
  }
  if (in.size() == 4 && t.size() == 2 && t[0] == in[0]) {
    ctx.defineOutput(node, FlattenOp::create(b, ctx.getLoc(node),
                                             ctx.getTensorType(t), *x,
                                             /*parallel=*/nullptr));
    return success();
  }
  // The start of a channel shuffle: N x g x C/g x H x W.
  if (in.size() == 4 && t.size() == 5 && t[0] == in[0] && t[3] == in[2] &&
      t[4] == in[3]) {
    ctx.deferShuffle(node.output(0), PendingShuffle{*x, t[1], false});
    return success();
  }
  return ctx.fail(node) << "reshape of " << shapeStr(in) << " to "
                        << shapeStr(t)
                        << " is not supported (only to N x -1, to the same "
                           "shape, or a channel shuffle)";
}

static LogicalResult importTranspose(const onnx::NodeProto &node,
                                     ImportContext &ctx) {
  std::optional<Shape> perm = intsAttr(node, "perm");
  if (node.input_size() < 1)
    return ctx.fail(node) << "expects an input #0";
  const std::string &input = node.input(0);
  if (const PendingShuffle *shuffle = ctx.lookupPendingShuffle(input)) {
    if (shuffle->transposed || perm != Shape{0, 2, 1, 3, 4})
      return ctx.fail(node) << "hd supports a 5-D view only in a channel "
                               "shuffle (Transpose with perm [0, 2, 1, 3, 4])";
    PendingShuffle transposed = *shuffle;
    transposed.transposed = true;
    ctx.deferShuffle(node.output(0), transposed);
    return success();
  }
  if (Value source = ctx.lookupChannelsLast(input)) {
    if (perm != Shape{0, 3, 1, 2})
      return ctx.fail(node) << "hd transposes a channels-last tensor only "
                               "back to N x C x H x W (perm [0, 3, 1, 2])";
    ctx.defineOutput(node, source);
    return success();
  }
  if (std::optional<Shape> param = ctx.getParameterShape(input)) {
    if (param->size() != 2 || (perm && perm != Shape{1, 0}))
      return ctx.fail(node) << "hd transposes a parameter only when it is a "
                               "2-D matrix (a MatMul's weight)";
    ctx.defineTransposedParameter(node.output(0), input);
    return success();
  }
  FailureOr<Value> x = ctx.getActivation(node, 0);
  if (failed(x))
    return failure();
  if (shapeOf(*x).size() == 4 && perm == Shape{0, 2, 3, 1}) {
    ctx.defineChannelsLast(node.output(0), *x);
    return success();
  }
  return ctx.fail(node) << "Transpose with perm [" << perm.value_or(Shape{})
                        << "] is not supported (only to channels-last and "
                           "back, and a channel shuffle's)";
}

/// The channel axis of a `rank`-D activation written as `axis`, which may
/// count from the end.
static bool isChannelAxis(int64_t axis, size_t rank) {
  return axis == 1 || axis + int64_t(rank) == 1;
}

/// The slice of `x` that holds channels [lo, hi), named `loc`.
static Value createSlice(ImportContext &ctx, Location loc, Value x, int64_t lo,
                         int64_t hi) {
  Shape shape = shapeOf(x);
  shape[1] = hi - lo;
  return SliceOp::create(ctx.getBuilder(), loc, ctx.getTensorType(shape), x,
                         lo, /*parallel=*/nullptr);
}

static LogicalResult importSlice(const onnx::NodeProto &node,
                                 ImportContext &ctx) {
  FailureOr<Value> x = ctx.getElementwiseInput(node, 0);
  if (failed(x))
    return failure();
  // Opset 10 moved starts, ends and axes from attributes to inputs. Absent
  // axes are the first dims, one per start.
  Shape starts, ends, axes{0}, steps{1};
  if (node.input_size() > 1) {
    FailureOr<Shape> s = constantInts(node, ctx, 1, "starts");
    if (failed(s))
      return failure();
    FailureOr<Shape> e = constantInts(node, ctx, 2, "ends");
    if (failed(e))
      return failure();
    FailureOr<Shape> a = optionalInts(node, ctx, 3, "axes", Shape{0});
    if (failed(a))
      return failure();
    FailureOr<Shape> st = optionalInts(node, ctx, 4, "steps", Shape{1});
    if (failed(st))
      return failure();
    starts = *s;
    ends = *e;
    axes = *a;
    steps = *st;
  } else {
    starts = intsAttr(node, "starts").value_or(Shape{});
    ends = intsAttr(node, "ends").value_or(Shape{});
    axes = intsAttr(node, "axes").value_or(Shape{0});
  }
  Shape in = shapeOf(*x);
  if (starts.size() != 1 || ends.size() != 1 || axes.size() != 1 ||
      !isChannelAxis(axes[0], in.size()) || steps != Shape{1})
    return ctx.fail(node) << "only a Slice of the channels (axis 1) with "
                             "step 1 is supported";
  int64_t lo = clampIndex(starts[0], in[1]), hi = clampIndex(ends[0], in[1]);
  if (hi <= lo)
    return ctx.fail(node) << "the Slice of channels [" << starts[0] << ", "
                          << ends[0] << ") is empty";
  ctx.defineOutput(node, createSlice(ctx, ctx.getLoc(node), *x, lo, hi));
  return success();
}

static LogicalResult importSplit(const onnx::NodeProto &node,
                                 ImportContext &ctx) {
  FailureOr<Value> x = ctx.getElementwiseInput(node, 0);
  if (failed(x))
    return failure();
  Shape in = shapeOf(*x);
  int64_t axis = intAttr(node, "axis").value_or(0);
  if (!isChannelAxis(axis, in.size()))
    return ctx.fail(node) << "attribute axis=" << axis
                          << " is not supported (only the channel axis 1)";
  // Sizes: an input since opset 13, an attribute before; equal parts when
  // absent.
  int outputs = node.output_size();
  Shape sizes;
  if (node.input_size() > 1 && !node.input(1).empty()) {
    FailureOr<Shape> s = constantInts(node, ctx, 1, "split");
    if (failed(s))
      return failure();
    sizes = *s;
  } else if (std::optional<Shape> s = intsAttr(node, "split")) {
    sizes = *s;
  } else {
    if (outputs < 1 || in[1] % outputs != 0)
      return ctx.fail(node) << in[1] << " channels do not split into "
                            << outputs << " equal parts";
    sizes.assign(outputs, in[1] / outputs);
  }
  int64_t total = 0;
  for (int64_t s : sizes)
    total += s < 1 ? in[1] + 1 : s; // a size below 1 fails the check below
  if (int(sizes.size()) != outputs || total != in[1])
    return ctx.fail(node) << "split sizes [" << sizes << "] do not cover the "
                          << in[1] << " channels with " << outputs
                          << " positive parts";
  StringRef name = ctx.getLoc(node).getName().strref();
  int64_t lo = 0;
  for (int i = 0; i < outputs; ++i) {
    Location loc = NameLoc::get(ctx.getBuilder().getStringAttr(
        name + "." + std::to_string(i)));
    ctx.defineValue(node.output(i),
                    createSlice(ctx, loc, *x, lo, lo + sizes[i]));
    lo += sizes[i];
  }
  return success();
}

void addLayoutPatterns(PatternTable &table) {
  table.add("Reshape", importReshape);
  table.add("Transpose", importTranspose);
  table.add("Slice", importSlice);
  table.add("Split", importSplit);
}

} // namespace hd::onnx_import
