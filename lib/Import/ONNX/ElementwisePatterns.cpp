//===- ElementwisePatterns.cpp - ONNX Relu, Add, Mul, Dropout, Identity ---===//
//
// Layers that keep their input's shape. hd's elementwise ops take the 2-D
// (N x F) and 4-D (N x C x H x W) activations of a CNN; Add needs equal
// types, Mul also takes a per-sample, per-channel scale (squeeze-and-
// excitation), and Identity adds no op at all.
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

static LogicalResult importAdd(const onnx::NodeProto &node,
                               ImportContext &ctx) {
  FailureOr<std::pair<Value, Value>> operands = getOperands(node, ctx);
  if (failed(operands))
    return failure();
  auto [a, b] = *operands;
  if (a.getType() != b.getType())
    return ctx.fail(node) << "inputs of shapes " << shapeStr(shapeOf(a))
                          << " and " << shapeStr(shapeOf(b))
                          << ": broadcasting is not supported";
  ctx.defineOutput(node, AddOp::create(ctx.getBuilder(), ctx.getLoc(node), a,
                                       b, /*parallel=*/nullptr));
  return success();
}

static LogicalResult importMul(const onnx::NodeProto &node,
                               ImportContext &ctx) {
  if (FailureOr<Value> scaled = importChannelScale(node, ctx);
      succeeded(scaled)) {
    ctx.defineOutput(node, *scaled);
    return success();
  }
  for (int i = 0; i < std::min(node.input_size(), 2); ++i)
    if (ctx.lookupConstant(node.input(i)))
      return ctx.fail(node) << "input '" << node.input(i)
                            << "' is a constant; only products of two "
                               "activations, or of one by a [C, 1, 1] "
                               "parameter, are supported";
  FailureOr<std::pair<Value, Value>> operands = getOperands(node, ctx);
  if (failed(operands))
    return failure();
  auto [a, b] = *operands;
  if (FailureOr<Value> fused = fuseActivationProduct(node, ctx, a, b);
      succeeded(fused)) {
    ctx.defineOutput(node, *fused);
    return success();
  }
  Shape sa = shapeOf(a), sb = shapeOf(b);
  // hd.mul takes the broadcast operand second.
  if (MulOp::scalesChannels(sb, sa))
    std::swap(a, b);
  else if (sa != sb && !MulOp::scalesChannels(sa, sb))
    return ctx.fail(node) << "inputs of shapes " << shapeStr(sa) << " and "
                          << shapeStr(sb)
                          << ": only equal shapes, or N x C x H x W by "
                             "N x C x 1 x 1, are supported";
  ctx.defineOutput(node, MulOp::create(ctx.getBuilder(), ctx.getLoc(node),
                                       a.getType(), a, b,
                                       /*parallel=*/nullptr));
  return success();
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
  table.insert({"Dropout", importDropout});
  table.insert({"Identity", importIdentity});
}

} // namespace hd::onnx_import
