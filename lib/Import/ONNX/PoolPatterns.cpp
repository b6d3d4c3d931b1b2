//===- PoolPatterns.cpp - ONNX pooling to hd.pool2d -----------------------===//
//
// MaxPool, AveragePool and their global forms are one hd op with a kind and a
// `global` flag; a ReduceMean over H and W is a global average pool (a
// ReduceMean of a channels-last tensor is a layer norm's, whose pattern,
// in ChannelsLastPatterns.cpp, comes first). Only what hd's pooling
// computes is accepted: no dilations, no indices output, and a folded zero
// Pad only where it means the same as the pool's own padding (an average
// that counts the padded zeros).
//
//===----------------------------------------------------------------------===//

#include "Attributes.h"
#include "Patterns.h"

#include "hd/Dialect/HD/IR/HDOps.h"
#include "hd/Tiling/Window.h"

using namespace mlir;

namespace hd::onnx_import {

static LogicalResult importPool(const onnx::NodeProto &node, ImportContext &ctx,
                                PoolKind kind, bool global) {
  if (failed(ctx.checkOnlyFirstOutputUsed(node)))
    return failure();
  // Attributes first: they are wrong whatever the input, so they are
  // reported even when the input comes from a node that failed.
  Shape dilations = intsAttr(node, "dilations").value_or(Shape{1, 1});
  if (llvm::any_of(dilations, [](int64_t d) { return d != 1; }))
    return ctx.fail(node) << "attribute dilations=[" << dilations
                          << "] is not supported (only 1)";
  if (intAttr(node, "storage_order").value_or(0) != 0)
    return ctx.fail(node) << "attribute storage_order=1 is not supported";
  const PendingPad *pad = ctx.getInputPad(node);
  if (pad && (kind != PoolKind::Avg || global))
    return ctx.fail(node)
           << "consumes a Pad; zero padding is not max pooling's padding";
  FailureOr<Value> input = ctx.getPaddedInput(node);
  if (failed(input))
    return failure();
  Value x = *input;
  Shape in = shapeOf(x);
  if (in.size() != 4)
    return ctx.fail(node) << "only 2-D pooling is supported; the input is "
                          << in.size() << "-D";
  Shape kernel, stride{1, 1}, pads{0, 0, 0, 0};
  bool ceil = false, includePad = false;
  if (global) {
    kernel = {in[2], in[3]};
  } else {
    std::optional<Shape> k = intsAttr(node, "kernel_shape");
    if (!k || k->size() != 2)
      return ctx.fail(node) << "kernel_shape must have 2 values";
    kernel = *k;
    stride = intsAttr(node, "strides").value_or(Shape{1, 1});
    pads = intsAttr(node, "pads").value_or(Shape{0, 0, 0, 0});
    if (stride.size() != 2 || pads.size() != 4)
      return ctx.fail(node) << "strides and pads must have 2 and 4 values";
    ceil = intAttr(node, "ceil_mode").value_or(0) != 0;
    includePad = intAttr(node, "count_include_pad").value_or(0) != 0;
    if (failed(applyAutoPad(node, ctx, in, kernel, stride, {1, 1},
                            "kernel_shape and strides must be in [1, 2^31]",
                            pads)))
      return failure();
  }
  if (llvm::any_of(pads, [](int64_t p) { return !inRange(p, 0); }))
    return ctx.fail(node) << "pads must be in [0, 2^31]";
  if (pad) {
    if (llvm::any_of(pads, [](int64_t p) { return p != 0; }) && !includePad)
      return ctx.fail(node) << "a folded Pad needs count_include_pad when "
                               "the pool pads too";
    pad->addTo(pads);
    includePad = true;
  }
  Shape out = {in[0], in[1], 0, 0};
  for (unsigned i = 0; i < 2; ++i) {
    if (!inRange(kernel[i], 1) || !inRange(stride[i], 1) ||
        !inRange(pads[i], 0) || !inRange(pads[i + 2], 0))
      return ctx.fail(node) << "kernel_shape and strides must be in "
                               "[1, 2^31] and pads in [0, 2^31]";
    if (pads[i] >= kernel[i] || pads[i + 2] >= kernel[i])
      return ctx.fail(node) << "pads must be smaller than the kernel";
    Window w{kernel[i], stride[i], pads[i], pads[i + 2], 1, ceil};
    out[2 + i] = w.outputSize(in[2 + i]);
    if (out[2 + i] < 1)
      return ctx.fail(node)
             << "the kernel does not fit the padded input " << shapeStr(in);
  }
  OpBuilder &b = ctx.getBuilder();
  ctx.defineOutput(
      node, Pool2dOp::create(
                b, ctx.getLoc(node), ctx.getTensorType(out), x,
                PoolKindAttr::get(b.getContext(), kind),
                b.getDenseI64ArrayAttr(kernel), b.getDenseI64ArrayAttr(stride),
                b.getDenseI64ArrayAttr(pads), b.getBoolAttr(ceil),
                b.getBoolAttr(includePad), global ? b.getUnitAttr() : nullptr,
                /*parallel=*/nullptr));
  return success();
}

static LogicalResult importMaxPool(const onnx::NodeProto &node,
                                   ImportContext &ctx) {
  return importPool(node, ctx, PoolKind::Max, /*global=*/false);
}

static LogicalResult importAveragePool(const onnx::NodeProto &node,
                                       ImportContext &ctx) {
  return importPool(node, ctx, PoolKind::Avg, /*global=*/false);
}

static LogicalResult importGlobalMaxPool(const onnx::NodeProto &node,
                                         ImportContext &ctx) {
  return importPool(node, ctx, PoolKind::Max, /*global=*/true);
}

static LogicalResult importGlobalAveragePool(const onnx::NodeProto &node,
                                             ImportContext &ctx) {
  return importPool(node, ctx, PoolKind::Avg, /*global=*/true);
}

/// The mean over H and W, as EfficientNet and MNASNet write global
/// pooling: a global average pool, then (keepdims = 0) a flatten to N x C.
static LogicalResult importReduceMean(const onnx::NodeProto &node,
                                      ImportContext &ctx) {
  FailureOr<Shape> axes = getReduceAxes(node, ctx);
  if (failed(axes))
    return failure();
  Shape sorted = *axes;
  for (int64_t &a : sorted)
    a = a < 0 ? a + 4 : a;
  llvm::sort(sorted);
  if (sorted != Shape{2, 3})
    return ctx.fail(node) << "only the mean over H and W (axes [2, 3] of an "
                             "N x C x H x W input) is supported; axes=["
                          << *axes << "]";
  int64_t keepdims = intAttr(node, "keepdims").value_or(1);
  if (failed(importPool(node, ctx, PoolKind::Avg, /*global=*/true)))
    return failure();
  if (keepdims)
    return success();
  Value pooled = ctx.lookupValue(node.output(0));
  Shape shape = shapeOf(pooled);
  OpBuilder &b = ctx.getBuilder();
  Location loc = NameLoc::get(
      b.getStringAttr(ctx.getLoc(node).getName().strref() + ".flatten"));
  ctx.defineOutput(node, FlattenOp::create(b, loc,
                                           ctx.getTensorType({shape[0],
                                                              shape[1]}),
                                           pooled, /*parallel=*/nullptr));
  return success();
}

void addPoolPatterns(PatternTable &table) {
  table.add("MaxPool", importMaxPool);
  table.add("AveragePool", importAveragePool);
  table.add("GlobalMaxPool", importGlobalMaxPool);
  table.add("GlobalAveragePool", importGlobalAveragePool);
  table.add("ReduceMean", importReduceMean);
}

} // namespace hd::onnx_import
