//===- ConvPatterns.cpp - ONNX Conv to hd.conv2d --------------------------===//
//
// hd's convolution owns its weight and bias, so both must be parameters whose
// shapes the graph states; the output shape is computed with hd's own window
// arithmetic (the formula the verifier uses), including ONNX's SAME
// auto-padding and a zero Pad folded in front of the convolution.
//
//===----------------------------------------------------------------------===//

#include "Attributes.h"
#include "Patterns.h"

#include "hd/Dialect/HD/IR/HDOps.h"
#include "hd/Tiling/Window.h"

using namespace mlir;

namespace hd::onnx_import {

static LogicalResult importConv(const onnx::NodeProto &node,
                                ImportContext &ctx) {
  // A folded Pad supplies the real input and extra padding.
  const PendingPad *pad = ctx.getInputPad(node);
  FailureOr<Value> input = ctx.getPaddedInput(node);
  if (failed(input))
    return failure();
  Value x = *input;
  Shape in = shapeOf(x);
  if (in.size() != 4)
    return ctx.fail(node)
           << "only 2-D convolutions are supported; the input is " << in.size()
           << "-D";
  if (node.input_size() < 2)
    return ctx.fail(node) << "has no weight input";
  std::optional<Shape> weight = ctx.getParameterShape(node.input(1));
  if (!weight || weight->size() != 4)
    return ctx.fail(node) << "weight '" << node.input(1)
                          << "' must be a parameter with a static K x "
                             "C/groups x kH x kW shape";
  int64_t groups = intAttr(node, "group").value_or(1);
  if (groups < 1 || in[1] % groups || (*weight)[1] * groups != in[1])
    return ctx.fail(node) << "weight shape " << shapeStr(*weight)
                          << " with group=" << groups << " does not fit "
                          << in[1] << " input channels";
  bool bias = node.input_size() > 2 && !node.input(2).empty();
  if (bias) {
    std::optional<Shape> b = ctx.getParameterShape(node.input(2));
    if (!b || b->size() != 1 || (*b)[0] != (*weight)[0])
      return ctx.fail(node)
             << "bias '" << node.input(2) << "' must be a parameter of shape "
             << (*weight)[0];
  }
  Shape kernel = intsAttr(node, "kernel_shape")
                     .value_or(Shape{(*weight)[2], (*weight)[3]});
  Shape stride = intsAttr(node, "strides").value_or(Shape{1, 1});
  Shape dilation = intsAttr(node, "dilations").value_or(Shape{1, 1});
  Shape pads = intsAttr(node, "pads").value_or(Shape{0, 0, 0, 0});
  if (kernel.size() != 2 || kernel[0] != (*weight)[2] ||
      kernel[1] != (*weight)[3])
    return ctx.fail(node)
           << "kernel_shape does not match the weight's spatial dims";
  if (stride.size() != 2 || dilation.size() != 2 || pads.size() != 4)
    return ctx.fail(node)
           << "strides, dilations and pads must have 2, 2 and 4 values";
  if (failed(applyAutoPad(node, ctx, in, kernel, stride, dilation,
                          "strides and dilations must be in [1, 2^31]", pads)))
    return failure();
  for (unsigned i = 0; i < 2; ++i)
    if (!inRange(kernel[i], 1) || !inRange(stride[i], 1) ||
        !inRange(dilation[i], 1) || !inRange(pads[i], 0) ||
        !inRange(pads[i + 2], 0))
      return ctx.fail(node) << "kernel, strides and dilations must be in "
                               "[1, 2^31] and pads in [0, 2^31]";
  if (pad)
    pad->addTo(pads);
  Shape out = {in[0], (*weight)[0], 0, 0};
  for (unsigned i = 0; i < 2; ++i) {
    Window w{kernel[i], stride[i], pads[i], pads[i + 2], dilation[i], false};
    out[2 + i] = w.outputSize(in[2 + i]);
    if (out[2 + i] < 1)
      return ctx.fail(node)
             << "the kernel does not fit the padded input " << shapeStr(in);
  }
  OpBuilder &b = ctx.getBuilder();
  auto conv = Conv2dOp::create(
      b, ctx.getLoc(node), ctx.getTensorType(out), x,
      b.getI64IntegerAttr((*weight)[0]), b.getDenseI64ArrayAttr(kernel),
      b.getDenseI64ArrayAttr(stride), b.getDenseI64ArrayAttr(pads),
      b.getDenseI64ArrayAttr(dilation), b.getI64IntegerAttr(groups),
      b.getBoolAttr(bias), /*parallel=*/nullptr);
  if (bias)
    ctx.recordTensors(conv,
                      {{"weight", node.input(1)}, {"bias", node.input(2)}});
  else
    ctx.recordTensors(conv, {{"weight", node.input(1)}});
  ctx.defineOutput(node, conv);
  return success();
}

void addConvPatterns(PatternTable &table) {
  table.add("Conv", importConv);
}

} // namespace hd::onnx_import
