//===- ChannelsLastPatterns.cpp - ConvNeXt's channels-last blocks ---------===//
//
// ConvNeXt transposes to N x H x W x C, normalizes and applies two Linear
// layers over the last dim, and transposes back. hd keeps N x C x H x W
// throughout (LayoutPatterns.cpp makes the Transposes free), so each
// channels-last node becomes a layer on the N x C x H x W source:
// - LayerNormalization over the last axis (opset 17), and the chain older
//   opsets write for it (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div,
//   Mul, Add), become one hd.layer_norm over the channels: the chain is a
//   ReduceMean pattern ahead of the global average pool's, and takes
//   every ReduceMean of a channels-last tensor;
// - a MatMul by a [C, K] weight (or the Transpose of a [K, C] one, as
//   Linear exports), with the bias Add that follows, is a 1x1 convolution.
// The layer scale that follows, a Mul by a [C, 1, 1] parameter, is
// hd.channel_binary (ElementwisePatterns.cpp).
//
//===----------------------------------------------------------------------===//

#include "Attributes.h"
#include "Patterns.h"

#include "hd/Dialect/HD/IR/HDOps.h"

#include <cmath>

using namespace mlir;

namespace hd::onnx_import {

/// Whether `axis` names the last of 4 dims.
static bool isLastAxis(int64_t axis) { return axis == 3 || axis == -1; }

/// Whether `name` is a parameter of `channels` values that broadcasts along
/// the last dim of a channels-last tensor: [C], [1, C], ...
static bool isChannelParameter(ImportContext &ctx, StringRef name,
                               int64_t channels) {
  std::optional<Shape> shape = ctx.getParameterShape(name);
  if (!shape || shape->empty() || shape->size() > 4)
    return false;
  Shape want(shape->size(), 1);
  want.back() = channels;
  return *shape == want;
}

/// The input of the binary `node` other than `name` when it is a channel
/// parameter of a channels-last tensor; empty otherwise.
static StringRef otherChannelParameter(const onnx::NodeProto &node,
                                       ImportContext &ctx, StringRef name,
                                       int64_t channels) {
  if (node.input_size() != 2)
    return {};
  StringRef other = node.input(0) == name ? node.input(1) : node.input(0);
  return isChannelParameter(ctx, other, channels)
             ? other
             : StringRef();
}

static Value createLayerNorm(ImportContext &ctx, Location loc, Value x,
                             double epsilon, StringRef scale,
                             StringRef shift) {
  OpBuilder &b = ctx.getBuilder();
  auto op = LayerNormOp::create(b, loc, x, b.getF64FloatAttr(epsilon),
                                /*parallel=*/nullptr);
  ctx.recordTensors(op, {{"scale", scale}, {"shift", shift}});
  return op;
}

static LogicalResult importLayerNormalization(const onnx::NodeProto &node,
                                              ImportContext &ctx) {
  if (failed(ctx.checkOnlyFirstOutputUsed(node)))
    return failure();
  Value x = node.input_size() > 0 ? ctx.lookupChannelsLast(node.input(0))
                                  : Value();
  if (!x) {
    if (failed(ctx.getActivation(node, 0)))
      return failure();
    return ctx.fail(node) << "only a layer norm over the channels of a "
                             "channels-last tensor (ConvNeXt's) is supported";
  }
  int64_t axis = intAttr(node, "axis").value_or(-1);
  if (!isLastAxis(axis))
    return ctx.fail(node) << "attribute axis=" << axis
                          << " is not supported (only the last, channels)";
  int64_t channels = shapeOf(x)[1];
  if (node.input_size() != 3)
    return ctx.fail(node) << "expects 3 inputs (X, scale, B)";
  for (int i = 1; i < 3; ++i)
    if (!isChannelParameter(ctx, node.input(i), channels))
      return ctx.fail(node) << "input '" << node.input(i)
                            << "' must be a parameter of shape " << channels;
  double eps = asDecimal(floatAttr(node, "epsilon").value_or(1e-5f));
  if (!(eps > 0))
    return ctx.fail(node) << "epsilon must be > 0";
  ctx.defineChannelsLast(node.output(0),
                         createLayerNorm(ctx, ctx.getLoc(node), x, eps,
                                         node.input(1), node.input(2)));
  return success();
}

/// The layer-norm chain that starts at `mean`, a ReduceMean of the
/// channels-last `x`, as one hd.layer_norm.
static LogicalResult importLayerNormChain(const onnx::NodeProto &mean,
                                          ImportContext &ctx, Value x) {
  // x - mean(x), normalized by sqrt(mean((x - mean(x))^2) + eps), scaled
  // and shifted: follow the chain from the first mean, each link the only
  // consumer of the one before, except the centred value, which feeds the
  // variance and the division.
  auto unsupported = [&]() -> LogicalResult {
    return ctx.fail(mean)
           << "a ReduceMean over the channels of a channels-last tensor is "
              "supported only as a layer norm (ReduceMean, Sub, Pow, "
              "ReduceMean, Add, Sqrt, Div, Mul, Add)";
  };
  FailureOr<Shape> axes = getReduceAxes(mean, ctx);
  if (failed(axes))
    return failure();
  if (axes->size() != 1 || !isLastAxis((*axes)[0]) ||
      intAttr(mean, "keepdims").value_or(1) != 1)
    return unsupported();
  StringRef in = mean.input(0);
  const onnx::NodeProto *sub = ctx.getOnlyUse(mean.output(0), "Sub");
  if (!sub || sub->input(0) != in)
    return unsupported();
  const onnx::NodeProto *pow = nullptr, *div = nullptr;
  for (const onnx::NodeProto *use : ctx.getUses(sub->output(0))) {
    if (use->op_type() == "Pow" && use->input(0) == sub->output(0))
      pow = use;
    if (use->op_type() == "Div" && use->input(0) == sub->output(0))
      div = use;
  }
  if (!pow || !div || ctx.getUses(sub->output(0)).size() != 2 ||
      !ctx.otherInputIsScalar(*pow, pow->input(0), 2.0))
    return unsupported();
  const onnx::NodeProto *variance =
      ctx.getOnlyUse(pow->output(0), "ReduceMean");
  if (!variance)
    return unsupported();
  FailureOr<Shape> varianceAxes = getReduceAxes(*variance, ctx);
  if (failed(varianceAxes) || varianceAxes->size() != 1 ||
      !isLastAxis((*varianceAxes)[0]) ||
      intAttr(*variance, "keepdims").value_or(1) != 1)
    return unsupported();
  const onnx::NodeProto *addEps =
      ctx.getOnlyUse(variance->output(0), "Add");
  const onnx::TensorProto *epsTensor =
      addEps && addEps->input_size() == 2
          ? ctx.lookupConstant(addEps->input(addEps->input(0) ==
                                                    variance->output(0)
                                                ? 1
                                                : 0))
          : nullptr;
  std::optional<double> eps =
      epsTensor ? tensorScalar(*epsTensor) : std::nullopt;
  if (!eps || !(*eps > 0))
    return unsupported();
  const onnx::NodeProto *sqrt = ctx.getOnlyUse(addEps->output(0), "Sqrt");
  if (!sqrt || ctx.getOnlyUse(sqrt->output(0)) != div ||
      div->input(1) != sqrt->output(0))
    return unsupported();
  int64_t channels = shapeOf(x)[1];
  const onnx::NodeProto *scale = ctx.getOnlyUse(div->output(0), "Mul");
  StringRef scaleParam =
      scale ? otherChannelParameter(*scale, ctx, div->output(0), channels)
            : StringRef();
  const onnx::NodeProto *shift =
      scaleParam.empty() ? nullptr
                         : ctx.getOnlyUse(scale->output(0), "Add");
  StringRef shiftParam =
      shift ? otherChannelParameter(*shift, ctx, scale->output(0), channels)
            : StringRef();
  if (shiftParam.empty())
    return unsupported();
  for (const onnx::NodeProto *n :
       {sub, pow, variance, addEps, sqrt, div, scale, shift})
    ctx.absorb(*n);
  ctx.defineChannelsLast(shift->output(0),
                         createLayerNorm(ctx, ctx.getLoc(mean), x,
                                         asDecimal(*eps), scaleParam,
                                         shiftParam));
  return success();
}

/// A ReduceMean of a channels-last tensor, which hd supports only as the
/// start of a layer norm; any other ReduceMean is not this pattern's.
static PatternResult importLayerNormFromMean(const onnx::NodeProto &mean,
                                             ImportContext &ctx) {
  Value x = mean.input_size() > 0 ? ctx.lookupChannelsLast(mean.input(0))
                                  : Value();
  if (!x)
    return PatternResult::NoMatch;
  return matchedOrFailed(importLayerNormChain(mean, ctx, x));
}

static LogicalResult importMatMul(const onnx::NodeProto &node,
                                  ImportContext &ctx) {
  if (node.input_size() != 2)
    return ctx.fail(node) << "expects 2 inputs";
  Value x = ctx.lookupChannelsLast(node.input(0));
  if (!x) {
    if (failed(ctx.getActivation(node, 0)))
      return failure();
    return ctx.fail(node) << "only a MatMul over the channels of a "
                             "channels-last tensor (ConvNeXt's Linear) is "
                             "supported; Gemm imports a Linear on N x F";
  }
  int64_t channels = shapeOf(x)[1];
  // hd's 1x1 convolution weight is K x C; Linear exports it so, behind a
  // Transpose; a plain [C, K] weight is stored transposed.
  StringRef weight = ctx.lookupTransposedParameter(node.input(1));
  bool transposed = weight.empty();
  if (transposed)
    weight = node.input(1);
  std::optional<Shape> shape = ctx.getParameterShape(weight);
  if (!shape || shape->size() != 2 ||
      (*shape)[transposed ? 0 : 1] != channels)
    return ctx.fail(node) << "input '" << node.input(1)
                          << "' must be a 2-D parameter with " << channels
                          << " input features";
  int64_t features = (*shape)[transposed ? 1 : 0];
  // The bias Add, when the product's one consumer adds a K-vector.
  const onnx::NodeProto *addBias = ctx.getOnlyUse(node.output(0), "Add");
  StringRef bias = addBias ? otherChannelParameter(*addBias, ctx,
                                                   node.output(0), features)
                           : StringRef();
  Shape out = shapeOf(x);
  out[1] = features;
  OpBuilder &b = ctx.getBuilder();
  auto conv = Conv2dOp::create(
      b, ctx.getLoc(node), ctx.getTensorType(out), x,
      b.getI64IntegerAttr(features), b.getDenseI64ArrayAttr({1, 1}),
      b.getDenseI64ArrayAttr({1, 1}), b.getDenseI64ArrayAttr({0, 0, 0, 0}),
      b.getDenseI64ArrayAttr({1, 1}), b.getI64IntegerAttr(1),
      b.getBoolAttr(!bias.empty()), /*parallel=*/nullptr);
  SmallVector<StringRef> transposedTensors;
  if (transposed)
    transposedTensors.push_back("weight");
  if (bias.empty()) {
    ctx.recordTensors(conv, {{"weight", weight}}, transposedTensors);
    ctx.defineChannelsLast(node.output(0), conv);
    return success();
  }
  ctx.recordTensors(conv, {{"weight", weight}, {"bias", bias}},
                    transposedTensors);
  ctx.absorb(*addBias);
  ctx.defineChannelsLast(addBias->output(0), conv);
  return success();
}

void addChannelsLastPatterns(PatternTable &table) {
  table.add("LayerNormalization", importLayerNormalization);
  table.add("ReduceMean", PatternBenefit::Chain, importLayerNormFromMean);
  table.add("MatMul", importMatMul);
}

} // namespace hd::onnx_import
