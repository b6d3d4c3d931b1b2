//===- ShapePatterns.cpp - ONNX Flatten, Concat, Pad, Constant ------------===//
//
// Nodes that rearrange data rather than compute on it. Flatten and channel
// Concat become hd ops; a zero Pad and a Constant produce no IR: the Pad
// waits to be folded into the padding of its one consumer, and the Constant
// is remembered for the patterns that read constant inputs (pads, ratio).
//
//===----------------------------------------------------------------------===//

#include "Attributes.h"
#include "Patterns.h"

#include "hd/Dialect/HD/IR/HDOps.h"

using namespace mlir;

namespace hd::onnx_import {

static LogicalResult importFlatten(const onnx::NodeProto &node,
                                   ImportContext &ctx) {
  FailureOr<Value> x = ctx.getActivation(node, 0);
  if (failed(x))
    return failure();
  Shape in = shapeOf(*x);
  int64_t rawAxis = intAttr(node, "axis").value_or(1);
  int64_t axis = rawAxis;
  if (axis < 0)
    axis += in.size();
  if (axis != 1)
    return ctx.fail(node) << "attribute axis=" << rawAxis
                          << " is not supported (only 1)";
  if (in.size() == 2) { // Already N x F.
    ctx.defineOutput(node, *x);
    return success();
  }
  if (in.size() != 4)
    return ctx.fail(node) << "input must be 2-D or 4-D; it is " << in.size()
                          << "-D";
  // Each dim is at most 2^31; check the product before forming it.
  __int128 features = __int128(in[1]) * in[2] * in[3];
  if (features * in[0] > (__int128(1) << 40))
    return ctx.fail(node) << "the flattened tensor has more than 2^40 elements";
  ctx.defineOutput(
      node, FlattenOp::create(ctx.getBuilder(), ctx.getLoc(node),
                              ctx.getTensorType({in[0], int64_t(features)}), *x,
                              /*parallel=*/nullptr));
  return success();
}

static LogicalResult importConcat(const onnx::NodeProto &node,
                                  ImportContext &ctx) {
  // A non-negative axis other than 1 is wrong whatever the inputs: report it
  // even when an input failed. A negative one needs the rank (below).
  int64_t rawAxis = intAttr(node, "axis").value_or(1);
  if (rawAxis != 1 && rawAxis >= 0)
    return ctx.fail(node) << "attribute axis=" << rawAxis
                          << " is not supported (only the channel axis 1)";
  SmallVector<Value> inputs;
  for (int i = 0; i < node.input_size(); ++i) {
    FailureOr<Value> x = ctx.getActivation(node, i);
    if (failed(x))
      return failure();
    inputs.push_back(*x);
  }
  if (inputs.empty())
    return ctx.fail(node) << "has no inputs";
  Shape out = shapeOf(inputs[0]);
  int64_t axis = rawAxis;
  if (axis < 0)
    axis += out.size();
  if (axis != 1)
    return ctx.fail(node) << "attribute axis=" << rawAxis
                          << " is not supported (only the channel axis 1)";
  if (out.size() != 2 && out.size() != 4)
    return ctx.fail(node) << "inputs must be 2-D or 4-D; they are "
                          << out.size() << "-D";
  out[1] = 0;
  for (Value v : inputs) {
    Shape s = shapeOf(v);
    if (s.size() != out.size())
      return ctx.fail(node) << "inputs have different ranks";
    for (unsigned d = 0; d < s.size(); ++d)
      if (d != 1 && s[d] != out[d])
        return ctx.fail(node)
               << "input shapes " << shapeStr(shapeOf(inputs[0])) << " and "
               << shapeStr(s) << " differ outside the channel axis";
    out[1] += s[1];
  }
  ctx.defineOutput(node, ConcatOp::create(ctx.getBuilder(), ctx.getLoc(node),
                                          ctx.getTensorType(out), inputs,
                                          /*parallel=*/nullptr));
  return success();
}

static LogicalResult importPad(const onnx::NodeProto &node,
                               ImportContext &ctx) {
  // Attributes first: they are wrong whatever the input.
  std::string mode = stringAttr(node, "mode", "constant");
  if (mode != "constant")
    return ctx.fail(node) << "mode '" << mode
                          << "' is not supported (only constant)";
  if (floatAttr(node, "value").value_or(0.0f) != 0.0f)
    return ctx.fail(node) << "only zero padding is supported (attribute value)";
  if (node.input_size() > 3 && !node.input(3).empty())
    return ctx.fail(node)
           << "input axes is not supported (pads must cover all 4 dims)";
  FailureOr<Value> x = ctx.getActivation(node, 0);
  if (failed(x))
    return failure();
  // Opset 11 moved pads and the fill value from attributes to constant
  // inputs.
  std::optional<Shape> pads = intsAttr(node, "pads");
  if (node.input_size() > 1 && !node.input(1).empty()) {
    const onnx::TensorProto *t = ctx.lookupConstant(node.input(1));
    pads = t ? tensorInts(*t) : std::nullopt;
    if (!pads)
      return ctx.fail(node) << "input pads must be a constant";
  }
  if (node.input_size() > 2 && !node.input(2).empty()) {
    const onnx::TensorProto *t = ctx.lookupConstant(node.input(2));
    std::optional<double> v = t ? tensorScalar(*t) : std::nullopt;
    if (!v || *v != 0.0)
      return ctx.fail(node) << "only zero padding is supported";
  }
  Shape in = shapeOf(*x);
  if (in.size() != 4 || !pads || pads->size() != 8)
    return ctx.fail(node)
           << "only padding of a 4-D input (8 pad values) is supported";
  const Shape &p = *pads;
  if (p[0] || p[1] || p[4] || p[5])
    return ctx.fail(node) << "only height/width padding is supported";
  if (llvm::any_of(p, [](int64_t v) { return v < 0; }))
    return ctx.fail(node) << "negative pads (cropping) are not supported";
  if (llvm::any_of(p, [](int64_t v) { return !inRange(v, 0); }))
    return ctx.fail(node) << "pads must be at most 2^31";
  if (node.output_size() < 1 || ctx.getUses(node.output(0)).size() != 1)
    return ctx.fail(node) << "a Pad is supported only when exactly one Conv "
                             "or AveragePool consumes it";
  ctx.deferPad(node, PendingPad{*x, p[2], p[3], p[6], p[7]});
  return success();
}

static LogicalResult importConstant(const onnx::NodeProto &node,
                                    ImportContext &ctx) {
  const onnx::AttributeProto *value = findAttr(node, "value");
  if (!value || value->type() != onnx::AttributeProto::TENSOR)
    return ctx.fail(node)
           << "only Constant nodes with a tensor 'value' are supported";
  ctx.defineConstant(node, value->t());
  return success();
}

void addShapePatterns(PatternTable &table) {
  table.add("Flatten", importFlatten);
  table.add("Concat", importConcat);
  table.add("Pad", importPad);
  table.add("Constant", importConstant);
}

} // namespace hd::onnx_import
