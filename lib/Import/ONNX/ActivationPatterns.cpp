//===- ActivationPatterns.cpp - ONNX activations to hd.activation ---------===//
//
// Clip (ReLU6), Sigmoid, HardSigmoid, HardSwish and Gelu are one hd op with a
// function. Exporters write three more as chains, and this family registers
// the pattern for the node each starts at, ahead of that op's own layer:
// SiLU as x * Sigmoid(x) and, before opset 14, hard swish as
// x * HardSigmoid(x), from the Mul; before opset 20, the exact GELU with Erf,
// from the Div.
//
//===----------------------------------------------------------------------===//

#include "Attributes.h"
#include "Patterns.h"

#include "hd/Dialect/HD/IR/HDOps.h"

#include "llvm/Support/FormatVariadic.h"

#include <cfloat>
#include <cmath>

using namespace mlir;

namespace hd::onnx_import {

static LogicalResult defineActivation(const onnx::NodeProto &node,
                                      ImportContext &ctx,
                                      ActivationFunction function,
                                      double alpha = 0, double beta = 0) {
  FailureOr<Value> x = ctx.getElementwiseInput(node, 0);
  if (failed(x))
    return failure();
  OpBuilder &b = ctx.getBuilder();
  ctx.defineOutput(node, ActivationOp::create(
                             b, ctx.getLoc(node), *x,
                             ActivationFunctionAttr::get(b.getContext(),
                                                         function),
                             b.getF64FloatAttr(alpha), b.getF64FloatAttr(beta),
                             /*parallel=*/nullptr));
  return success();
}

/// Clip's bound `index` (1: min, 2: max): an input since opset 11, an
/// attribute before; `dflt` when absent.
static FailureOr<double> clipBound(const onnx::NodeProto &node,
                                   ImportContext &ctx, int index,
                                   const char *attr, double dflt) {
  if (node.input_size() > index && !node.input(index).empty()) {
    const onnx::TensorProto *t = ctx.lookupConstant(node.input(index));
    std::optional<double> v = t ? tensorScalar(*t) : std::nullopt;
    if (!v)
      return ctx.fail(node) << "input " << attr
                            << " must be a constant scalar",
             failure();
    return asDecimal(*v);
  }
  if (std::optional<float> v = floatAttr(node, attr))
    return asDecimal(*v);
  return dflt;
}

static LogicalResult importClip(const onnx::NodeProto &node,
                                ImportContext &ctx) {
  // An absent bound is the largest finite float, which no activation
  // reaches, so the op's bounds stay finite.
  FailureOr<double> lo = clipBound(node, ctx, 1, "min", -FLT_MAX);
  if (failed(lo))
    return failure();
  FailureOr<double> hi = clipBound(node, ctx, 2, "max", FLT_MAX);
  if (failed(hi))
    return failure();
  if (!std::isfinite(*lo) || !std::isfinite(*hi) || !(*lo <= *hi))
    return ctx.fail(node) << llvm::formatv(
               "bounds [{0}, {1}] must be finite with min <= max", *lo, *hi);
  return defineActivation(node, ctx, ActivationFunction::Clip, *lo, *hi);
}

static LogicalResult importSigmoid(const onnx::NodeProto &node,
                                   ImportContext &ctx) {
  return defineActivation(node, ctx, ActivationFunction::Sigmoid);
}

static LogicalResult importHardSigmoid(const onnx::NodeProto &node,
                                       ImportContext &ctx) {
  double alpha = asDecimal(floatAttr(node, "alpha").value_or(0.2f));
  double beta = asDecimal(floatAttr(node, "beta").value_or(0.5f));
  if (!(alpha > 0) || !std::isfinite(alpha) || !std::isfinite(beta))
    return ctx.fail(node) << llvm::formatv(
               "alpha {0} must be positive and beta {1} finite", alpha, beta);
  return defineActivation(node, ctx, ActivationFunction::HardSigmoid, alpha,
                          beta);
}

static LogicalResult importHardSwish(const onnx::NodeProto &node,
                                     ImportContext &ctx) {
  return defineActivation(node, ctx, ActivationFunction::HardSwish);
}

static LogicalResult importGelu(const onnx::NodeProto &node,
                                ImportContext &ctx) {
  std::string approximate = stringAttr(node, "approximate", "none");
  if (approximate != "none")
    return ctx.fail(node) << "approximate='" << approximate
                          << "' is not supported (only the exact 'none')";
  return defineActivation(node, ctx, ActivationFunction::Gelu);
}

/// PyTorch's hard sigmoid, the factor of its hard swish: relu6(x + 3) / 6.
static bool isTorchHardSigmoid(ActivationOp op) {
  return op.getFunction() == ActivationFunction::HardSigmoid &&
         std::abs(op.getAlpha().convertToDouble() - 1.0 / 6) < 1e-6 &&
         op.getBeta().convertToDouble() == 0.5;
}

/// The input `name` of a binary node as an elementwise layer reads it (an
/// imported 2-D or 4-D activation, not a parameter or constant); null when
/// it is not one, and the elementwise layer reports the node.
static Value getPlainActivation(ImportContext &ctx, StringRef name) {
  if (name.empty() || ctx.getParameterShape(name) || ctx.lookupConstant(name))
    return {};
  Value x = ctx.lookupValue(name);
  if (!x || (shapeOf(x).size() != 2 && shapeOf(x).size() != 4))
    return {};
  return x;
}

/// x * f(x) for an activation f that exporters write so (SiLU, hard swish),
/// as one hd.activation. Any other product is not this pattern's, nor is one
/// of inputs that the elementwise Mul refuses: that layer reports it.
static PatternResult importActivationProduct(const onnx::NodeProto &node,
                                             ImportContext &ctx) {
  if (node.input_size() != 2)
    return PatternResult::NoMatch;
  Value a = getPlainActivation(ctx, node.input(0));
  Value b = getPlainActivation(ctx, node.input(1));
  if (!a || !b)
    return PatternResult::NoMatch;
  for (int side = 0; side < 2; ++side) {
    Value x = side ? b : a, factor = side ? a : b;
    auto act = factor.getDefiningOp<ActivationOp>();
    // The factor must be this node's alone: it disappears into the fused op.
    if (!act || act.getInput() != x ||
        ctx.getUses(node.input(1 - side)).size() != 1)
      continue;
    ActivationFunction fused;
    if (act.getFunction() == ActivationFunction::Sigmoid)
      fused = ActivationFunction::Silu;
    else if (isTorchHardSigmoid(act))
      fused = ActivationFunction::HardSwish;
    else
      continue;
    OpBuilder &builder = ctx.getBuilder();
    Value y = ActivationOp::create(
        builder, ctx.getLoc(node), x,
        ActivationFunctionAttr::get(builder.getContext(), fused),
        builder.getF64FloatAttr(0), builder.getF64FloatAttr(0),
        /*parallel=*/nullptr);
    act.erase();
    ctx.defineOutput(node, y);
    return PatternResult::Matched;
  }
  return PatternResult::NoMatch;
}

/// The exact GELU as exporters write it before opset 20,
/// x * (1 + erf(x / sqrt(2))) * 0.5, from its Div, as one hd.activation; x
/// may be channels-last (ConvNeXt's), and the activation is then computed
/// on its source. A Div that starts no such chain is not this pattern's.
static PatternResult importErfGelu(const onnx::NodeProto &node,
                                   ImportContext &ctx) {
  if (node.input_size() != 2)
    return PatternResult::NoMatch;
  StringRef x = node.input(0);
  // Div(x, sqrt 2) -> Erf -> Add(1) -> Mul(x, .) -> Mul(0.5), each link
  // the only consumer of the one before.
  if (!ctx.otherInputIsScalar(node, x, M_SQRT2))
    return PatternResult::NoMatch;
  const onnx::NodeProto *erf = ctx.getOnlyUse(node.output(0), "Erf");
  const onnx::NodeProto *plusOne =
      erf ? ctx.getOnlyUse(erf->output(0), "Add") : nullptr;
  if (!plusOne || !ctx.otherInputIsScalar(*plusOne, erf->output(0), 1.0))
    return PatternResult::NoMatch;
  const onnx::NodeProto *times = ctx.getOnlyUse(plusOne->output(0), "Mul");
  const onnx::NodeProto *half =
      times ? ctx.getOnlyUse(times->output(0), "Mul") : nullptr;
  if (!half || !ctx.otherInputIsScalar(*half, times->output(0), 0.5) ||
      times->input_size() != 2 ||
      (times->input(0) == plusOne->output(0) ? times->input(1)
                                             : times->input(0)) != x)
    return PatternResult::NoMatch;
  Value channelsLast = ctx.lookupChannelsLast(x);
  FailureOr<Value> in = channelsLast ? FailureOr<Value>(channelsLast)
                                     : ctx.getElementwiseInput(node, 0);
  if (failed(in))
    return PatternResult::Failed;
  OpBuilder &b = ctx.getBuilder();
  Value y = ActivationOp::create(
      b, ctx.getLoc(node), *in,
      ActivationFunctionAttr::get(b.getContext(), ActivationFunction::Gelu),
      b.getF64FloatAttr(0), b.getF64FloatAttr(0), /*parallel=*/nullptr);
  for (const onnx::NodeProto *n : {erf, plusOne, times, half})
    ctx.absorb(*n);
  if (channelsLast)
    ctx.defineChannelsLast(half->output(0), y);
  else
    ctx.defineValue(half->output(0), y);
  return PatternResult::Matched;
}

void addActivationPatterns(PatternTable &table) {
  table.add("Clip", importClip);
  table.add("Sigmoid", importSigmoid);
  table.add("HardSigmoid", importHardSigmoid);
  table.add("HardSwish", importHardSwish);
  table.add("Gelu", importGelu);
  table.add("Mul", PatternBenefit::Chain, importActivationProduct);
  table.add("Div", PatternBenefit::Chain, importErfGelu);
}

} // namespace hd::onnx_import
