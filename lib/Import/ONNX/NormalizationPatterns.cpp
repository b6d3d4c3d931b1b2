//===- NormalizationPatterns.cpp - ONNX BatchNormalization to hd ----------===//
//
// hd.batchnorm owns its scale, shift and running statistics, so the
// four parameter inputs only need the channel count's shape; epsilon and
// momentum are kept as the decimals the model's author wrote.
//
//===----------------------------------------------------------------------===//

#include "Attributes.h"
#include "Patterns.h"

#include "hd/Dialect/HD/IR/HDOps.h"

using namespace mlir;

namespace hd::onnx_import {

static LogicalResult importBatchNorm(const onnx::NodeProto &node,
                                     ImportContext &ctx) {
  if (failed(ctx.checkOnlyFirstOutputUsed(node)))
    return failure();
  FailureOr<Value> x = ctx.getActivation(node, 0);
  if (failed(x))
    return failure();
  Shape in = shapeOf(*x);
  if (in.size() != 4)
    return ctx.fail(node)
           << "only 4-D (NxCxHxW) batch norm is supported; the input is "
           << in.size() << "-D";
  if (node.input_size() != 5)
    return ctx.fail(node) << "expects 5 inputs (X, scale, B, mean, var)";
  for (int i = 1; i < 5; ++i) {
    std::optional<Shape> p = ctx.getParameterShape(node.input(i));
    if (!p || p->size() != 1 || (*p)[0] != in[1])
      return ctx.fail(node) << "input '" << node.input(i)
                            << "' must be a parameter of shape " << in[1];
  }
  double eps = asDecimal(floatAttr(node, "epsilon").value_or(1e-5f));
  double momentum = asDecimal(floatAttr(node, "momentum").value_or(0.9f));
  if (!(eps > 0) || !(momentum >= 0 && momentum <= 1))
    return ctx.fail(node) << "epsilon must be > 0 and momentum in [0, 1]";
  OpBuilder &b = ctx.getBuilder();
  auto bn = BatchNormOp::create(b, ctx.getLoc(node), *x, b.getF64FloatAttr(eps),
                                b.getF64FloatAttr(momentum),
                                /*parallel=*/nullptr);
  ctx.recordTensors(bn, {{"scale", node.input(1)},
                         {"shift", node.input(2)},
                         {"running_mean", node.input(3)},
                         {"running_var", node.input(4)}});
  ctx.defineOutput(node, bn);
  return success();
}

void addNormalizationPatterns(PatternTable &table) {
  table.add("BatchNormalization", importBatchNorm);
}

} // namespace hd::onnx_import
