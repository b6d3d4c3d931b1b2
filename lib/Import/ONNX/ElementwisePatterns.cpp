//===- ElementwisePatterns.cpp - ONNX Relu, Add/Sub/Mul/Div, Dropout ------===//
//
// Layers that keep their input's shape. hd's elementwise ops take the 2-D
// (N x F) and 4-D (N x C x H x W) activations of a CNN; Add, Sub, Mul and
// Div also take a per-sample, per-channel activation (squeeze-and-
// excitation's scale) or a per-channel parameter (a layer scale, a
// normalization inside the model), and Identity and Dropout turned off add
// no op at all.
//
// These are the op types' layers, tried after the patterns of higher
// benefit: shape arithmetic on integer constants (ShapeArithmetic.cpp) and
// the activations that exporters write as a Mul or from a Div
// (ActivationPatterns.cpp) take their nodes first.
//
//===----------------------------------------------------------------------===//

#include "Attributes.h"
#include "Patterns.h"

#include "hd/Dialect/HD/IR/HDOps.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <utility>

using namespace mlir;

namespace hd::onnx_import {

static LogicalResult importRelu(const onnx::NodeProto &node,
                                ImportContext &ctx) {
  FailureOr<Value> x = ctx.getElementwiseInput(node, 0);
  if (failed(x))
    return failure();
  ctx.defineOutput(node, ReluOp::create(ctx.getBuilder(), ctx.getLoc(node), *x,
                                        /*parallel=*/nullptr));
  return success();
}

/// The two activations of a binary layer, each 2-D or 4-D.
static FailureOr<std::pair<Value, Value>>
getOperands(const onnx::NodeProto &node, ImportContext &ctx) {
  if (node.input_size() != 2)
    return ctx.fail(node) << "expects 2 inputs", failure();
  FailureOr<Value> a = ctx.getElementwiseInput(node, 0);
  if (failed(a))
    return failure();
  FailureOr<Value> b = ctx.getElementwiseInput(node, 1);
  if (failed(b))
    return failure();
  return std::make_pair(*a, *b);
}

/// Whether the parameter `name` holds one value per channel of `x`, as ONNX
/// broadcasts it: [C, 1, 1] or [1, C, 1, 1] for an N x C x H x W `x`, [F]
/// or [1, F] for an N x F one.
static bool isPerChannelParameter(ImportContext &ctx, StringRef name,
                                  Value x) {
  std::optional<Shape> shape = ctx.getParameterShape(name);
  if (!shape)
    return false;
  Shape sx = shapeOf(x);
  if (sx.size() == 4)
    return *shape == Shape{sx[1], 1, 1} || *shape == Shape{1, sx[1], 1, 1};
  return sx.size() == 2 &&
         (*shape == Shape{sx[1]} || *shape == Shape{1, sx[1]});
}

/// Add, Sub, Mul or Div of an activation and a per-channel parameter (a
/// layer scale, a normalization inside the model) as hd.channel_binary,
/// frozen when the user said the parameter is a buffer; nullopt when no
/// input is such a parameter.
static std::optional<LogicalResult>
importChannelOperand(const onnx::NodeProto &node, ImportContext &ctx,
                     BinaryFunction f) {
  if (node.input_size() != 2)
    return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    StringRef operand = node.input(side);
    Value x = ctx.lookupValue(node.input(1 - side));
    if (!x || !isPerChannelParameter(ctx, operand, x))
      continue;
    if (side == 0 && (f == BinaryFunction::Sub || f == BinaryFunction::Div))
      return ctx.fail(node)
             << "the per-channel parameter '" << operand
             << "' is the first operand; only activation "
             << (f == BinaryFunction::Sub ? "-" : "/")
             << " parameter is supported";
    bool frozen = ctx.freezes(operand);
    OpBuilder &b = ctx.getBuilder();
    auto op = ChannelBinaryOp::create(
        b, ctx.getLoc(node), x.getType(), x,
        BinaryFunctionAttr::get(b.getContext(), f),
        frozen ? b.getUnitAttr() : nullptr, /*parallel=*/nullptr);
    ctx.recordTensors(op, {{"operand", operand}});
    ctx.defineOutput(node, op);
    return success();
  }
  return std::nullopt;
}

/// Add, Sub, Mul and Div of two activations of one shape, or of an
/// N x C x H x W one and an N x C x 1 x 1 one (second, or either for the
/// commutative Add and Mul). A residual Add is hd.add; the rest hd.binary.
static LogicalResult importBinary(const onnx::NodeProto &node,
                                  ImportContext &ctx, BinaryFunction f) {
  if (std::optional<LogicalResult> perChannel =
          importChannelOperand(node, ctx, f))
    return *perChannel;
  StringRef op = node.op_type();
  for (int i = 0; i < std::min(node.input_size(), 2); ++i) {
    StringRef input = node.input(i);
    if (ctx.getParameterShape(input))
      return ctx.fail(node)
             << "parameter '" << input << "' of shape "
             << shapeStr(*ctx.getParameterShape(input)) << ": only " << op
             << " of two activations, or of one by a per-channel ([C, 1, 1]) "
                "parameter, is supported";
    if (ctx.lookupConstant(input))
      return ctx.fail(node)
             << "input '" << input << "' is a constant; only " << op
             << " of two activations, or of one by a per-channel ([C, 1, 1]) "
                "parameter, is supported (store the constant in the model "
                "as a parameter or buffer)";
  }
  FailureOr<std::pair<Value, Value>> operands = getOperands(node, ctx);
  if (failed(operands))
    return failure();
  auto [a, b] = *operands;
  OpBuilder &builder = ctx.getBuilder();
  Shape sa = shapeOf(a), sb = shapeOf(b);
  if (sa == sb && f == BinaryFunction::Add) {
    ctx.defineOutput(node, AddOp::create(builder, ctx.getLoc(node), a, b,
                                         /*parallel=*/nullptr));
    return success();
  }
  bool commutative = f == BinaryFunction::Add || f == BinaryFunction::Mul;
  // hd.binary takes the broadcast operand second.
  if (commutative && BinaryOp::perChannel(sb, sa))
    std::swap(a, b);
  else if (sa != sb && !BinaryOp::perChannel(sa, sb))
    return ctx.fail(node) << "inputs of shapes " << shapeStr(sa) << " and "
                          << shapeStr(sb)
                          << ": only equal shapes, or N x C x H x W and "
                             "N x C x 1 x 1"
                          << (commutative ? "" : " in that order")
                          << ", are supported";
  ctx.defineOutput(node,
                   BinaryOp::create(builder, ctx.getLoc(node), a.getType(), a,
                                    b,
                                    BinaryFunctionAttr::get(
                                        builder.getContext(), f),
                                    /*parallel=*/nullptr));
  return success();
}

static LogicalResult importAdd(const onnx::NodeProto &node,
                               ImportContext &ctx) {
  return importBinary(node, ctx, BinaryFunction::Add);
}

static LogicalResult importSub(const onnx::NodeProto &node,
                               ImportContext &ctx) {
  return importBinary(node, ctx, BinaryFunction::Sub);
}

static LogicalResult importMul(const onnx::NodeProto &node,
                               ImportContext &ctx) {
  return importBinary(node, ctx, BinaryFunction::Mul);
}

static LogicalResult importDiv(const onnx::NodeProto &node,
                               ImportContext &ctx) {
  return importBinary(node, ctx, BinaryFunction::Div);
}

static LogicalResult importDropout(const onnx::NodeProto &node,
                                   ImportContext &ctx) {
  if (failed(ctx.checkOnlyFirstOutputUsed(node)))
    return failure();
  FailureOr<Value> x = ctx.getElementwiseInput(node, 0);
  if (failed(x))
    return failure();
  // Opset 12 moved the ratio from an attribute to a constant input.
  double ratio = asDecimal(floatAttr(node, "ratio").value_or(0.5f));
  if (node.input_size() > 1 && !node.input(1).empty()) {
    const onnx::TensorProto *t = ctx.lookupConstant(node.input(1));
    std::optional<double> r = t ? tensorScalar(*t) : std::nullopt;
    if (!r)
      return ctx.fail(node) << "input ratio must be a constant scalar";
    ratio = asDecimal(*r);
  }
  // formatv prints the ratio in fixed notation (1.50); a double streamed
  // into a diagnostic would print as 1.500000e+00.
  if (!(ratio >= 0 && ratio < 1))
    return ctx.fail(node) << llvm::formatv("ratio {0} must be in [0, 1)",
                                           ratio);
  // Dropout turned off (torchvision's models with dropout=0) drops
  // nothing: no layer.
  if (ratio == 0) {
    ctx.defineOutput(node, *x);
    return success();
  }
  OpBuilder &b = ctx.getBuilder();
  ctx.defineOutput(node, DropoutOp::create(b, ctx.getLoc(node), *x,
                                           b.getF64FloatAttr(ratio),
                                           /*parallel=*/nullptr));
  return success();
}

static LogicalResult importIdentity(const onnx::NodeProto &node,
                                    ImportContext &ctx) {
  FailureOr<Value> x = ctx.getActivation(node, 0);
  if (failed(x))
    return failure();
  ctx.defineOutput(node, *x);
  return success();
}

void addElementwisePatterns(PatternTable &table) {
  table.add("Relu", importRelu);
  table.add("Add", importAdd);
  table.add("Mul", importMul);
  table.add("Sub", importSub);
  table.add("Div", importDiv);
  table.add("Dropout", importDropout);
  table.add("Identity", importIdentity);
}

} // namespace hd::onnx_import
