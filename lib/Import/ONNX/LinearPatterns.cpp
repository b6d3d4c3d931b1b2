//===- LinearPatterns.cpp - ONNX Gemm to hd.linear ------------------------===//
//
// A classifier's Gemm is hd's fully connected layer: Y = X * W (+ C) with a
// parameter weight and bias. Scaling (alpha, beta) and a transposed
// activation are not part of that layer, so they are refused, not dropped.
//
//===----------------------------------------------------------------------===//

#include "Attributes.h"
#include "Patterns.h"

#include "hd/Dialect/HD/IR/HDOps.h"

using namespace mlir;

namespace hd::onnx_import {

static LogicalResult importGemm(const onnx::NodeProto &node,
                                ImportContext &ctx) {
  if (intAttr(node, "transA").value_or(0) != 0)
    return ctx.fail(node) << "attribute transA=1 is not supported";
  if (floatAttr(node, "alpha").value_or(1.0f) != 1.0f ||
      floatAttr(node, "beta").value_or(1.0f) != 1.0f)
    return ctx.fail(node) << "attributes alpha and beta must be 1";
  FailureOr<Value> x = ctx.getActivation(node, 0);
  if (failed(x))
    return failure();
  Shape in = shapeOf(*x);
  if (in.size() != 2)
    return ctx.fail(node) << "input A must be 2-D (N x F); it is " << in.size()
                          << "-D";
  if (node.input_size() < 2)
    return ctx.fail(node) << "has no weight input";
  std::optional<Shape> w = ctx.getParameterShape(node.input(1));
  if (!w || w->size() != 2)
    return ctx.fail(node) << "weight '" << node.input(1)
                          << "' must be a 2-D parameter";
  bool transB = intAttr(node, "transB").value_or(0) != 0;
  int64_t features = transB ? (*w)[1] : (*w)[0];
  int64_t outFeatures = transB ? (*w)[0] : (*w)[1];
  if (features != in[1])
    return ctx.fail(node) << "weight shape " << shapeStr(*w) << " does not fit "
                          << in[1] << " input features";
  bool bias = node.input_size() > 2 && !node.input(2).empty();
  if (bias) {
    std::optional<Shape> b = ctx.getParameterShape(node.input(2));
    bool perOutput =
        b && ((b->size() == 1 && (*b)[0] == outFeatures) ||
              (b->size() == 2 && (*b)[0] == 1 && (*b)[1] == outFeatures));
    if (!perOutput)
      return ctx.fail(node) << "bias C must be a parameter of shape "
                            << outFeatures << " or 1x" << outFeatures;
  }
  OpBuilder &b = ctx.getBuilder();
  auto linear = LinearOp::create(
      b, ctx.getLoc(node), ctx.getTensorType({in[0], outFeatures}), *x,
      b.getI64IntegerAttr(outFeatures), b.getBoolAttr(bias),
      /*parallel=*/nullptr);
  // hd's weight is out_features x features: ONNX's B when transB is set,
  // its transpose otherwise.
  SmallVector<std::pair<StringRef, StringRef>, 2> tensors = {
      {"weight", node.input(1)}};
  if (bias)
    tensors.push_back({"bias", node.input(2)});
  SmallVector<StringRef, 1> transposed;
  if (!transB)
    transposed.push_back("weight");
  ctx.recordTensors(linear, tensors, transposed);
  ctx.defineOutput(node, linear);
  return success();
}

void addLinearPatterns(PatternTable &table) {
  table.add("Gemm", importGemm);
}

} // namespace hd::onnx_import
