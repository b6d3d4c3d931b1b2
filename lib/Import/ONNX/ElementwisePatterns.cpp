//===- ElementwisePatterns.cpp - ONNX Relu, Add/Sub/Mul/Div, Dropout ------===//
//
// Layers that keep their input's shape. hd's elementwise ops take the 2-D
// (N x F) and 4-D (N x C x H x W) activations of a CNN; Add, Sub, Mul and
// Div also take a per-sample, per-channel operand (squeeze-and-excitation's
// scale), and Identity and Dropout turned off add no op at all.
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

/// Add, Sub, Mul and Div of two activations of one shape, or of an
/// N x C x H x W one and an N x C x 1 x 1 one (second, or either for the
/// commutative Add and Mul). A residual Add is hd.add; the rest hd.binary.
static LogicalResult importBinary(const onnx::NodeProto &node,
                                  ImportContext &ctx, BinaryFunction f) {
  StringRef op = node.op_type();
  for (int i = 0; i < std::min(node.input_size(), 2); ++i)
    if (ctx.lookupConstant(node.input(i)) ||
        ctx.getParameterShape(node.input(i)))
      return ctx.fail(node)
             << "input '" << node.input(i)
             << "' is a constant or parameter; only " << op
             << " of two activations"
             << (f == BinaryFunction::Mul
                     ? ", or of one by a [C, 1, 1] parameter, is supported"
                     : " is supported");
  FailureOr<std::pair<Value, Value>> operands = getOperands(node, ctx);
  if (failed(operands))
    return failure();
  auto [a, b] = *operands;
  OpBuilder &builder = ctx.getBuilder();
  if (f == BinaryFunction::Mul)
    if (FailureOr<Value> fused = fuseActivationProduct(node, ctx, a, b);
        succeeded(fused)) {
      ctx.defineOutput(node, *fused);
      return success();
    }
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
  if (FailureOr<Value> scaled = importChannelScale(node, ctx);
      succeeded(scaled)) {
    ctx.defineOutput(node, *scaled);
    return success();
  }
  return importBinary(node, ctx, BinaryFunction::Mul);
}

static LogicalResult importDiv(const onnx::NodeProto &node,
                               ImportContext &ctx) {
  if (std::optional<LogicalResult> gelu = importErfGelu(node, ctx))
    return *gelu;
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
  table.insert({"Relu", importRelu});
  table.insert({"Add", importAdd});
  table.insert({"Mul", importMul});
  table.insert({"Sub", importSub});
  table.insert({"Div", importDiv});
  table.insert({"Dropout", importDropout});
  table.insert({"Identity", importIdentity});
}

} // namespace hd::onnx_import
