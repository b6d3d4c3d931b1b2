//===- ActivationPatterns.cpp - ONNX activations to hd.activation ---------===//
//
// Clip (ReLU6), Sigmoid, HardSigmoid, HardSwish and Gelu are one hd op with a
// function. Exporters write three more as chains: SiLU as x * Sigmoid(x)
// and, before opset 14, hard swish as x * HardSigmoid(x), which Mul
// recognizes (fuseActivationProduct), and, before opset 20, the exact GELU
// with Erf, which Div recognizes (importErfGelu).
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

FailureOr<Value> fuseActivationProduct(const onnx::NodeProto &node,
                                       ImportContext &ctx, Value a, Value b) {
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
    return y;
  }
  return failure();
}

std::optional<LogicalResult> importErfGelu(const onnx::NodeProto &node,
                                          ImportContext &ctx) {
  if (node.input_size() != 2)
    return std::nullopt;
  StringRef x = node.input(0);
  // Div(x, sqrt 2) -> Erf -> Add(1) -> Mul(x, .) -> Mul(0.5), each link
  // the only consumer of the one before.
  if (!ctx.otherInputIsScalar(node, x, M_SQRT2))
    return std::nullopt;
  const onnx::NodeProto *erf = ctx.getOnlyUse(node.output(0), "Erf");
  const onnx::NodeProto *plusOne =
      erf ? ctx.getOnlyUse(erf->output(0), "Add") : nullptr;
  if (!plusOne || !ctx.otherInputIsScalar(*plusOne, erf->output(0), 1.0))
    return std::nullopt;
  const onnx::NodeProto *times = ctx.getOnlyUse(plusOne->output(0), "Mul");
  const onnx::NodeProto *half =
      times ? ctx.getOnlyUse(times->output(0), "Mul") : nullptr;
  if (!half || !ctx.otherInputIsScalar(*half, times->output(0), 0.5) ||
      times->input_size() != 2 ||
      (times->input(0) == plusOne->output(0) ? times->input(1)
                                             : times->input(0)) != x)
    return std::nullopt;
  Value channelsLast = ctx.lookupChannelsLast(x);
  FailureOr<Value> in = channelsLast ? FailureOr<Value>(channelsLast)
                                     : ctx.getElementwiseInput(node, 0);
  if (failed(in))
    return failure();
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
  return success();
}

void addActivationPatterns(PatternTable &table) {
  table.add("Clip", importClip);
  table.add("Sigmoid", importSigmoid);
  table.add("HardSigmoid", importHardSigmoid);
  table.add("HardSwish", importHardSwish);
  table.add("Gelu", importGelu);
}

} // namespace hd::onnx_import
