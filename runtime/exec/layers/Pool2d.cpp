//===- Pool2d.cpp - max or average pooling on this rank's tile ------------===//

#include "../LayerImpl.h"

#include "kernels/Pool2d/Pool2dKernels.h"

#include "hdrt/common/WindowTiles.h"

#include <algorithm>

namespace hdrt::exec {

namespace {

struct PoolState : LayerState {
  /// This rank's tile: the input box it reads and its kernel call.
  Box in;
  Pool2dShape shape;
  /// Where max pooling's forward leaves each window's maximum for the
  /// backward (allocated at the first forward, when the layouts are
  /// known), and whether this step's forward filled it.
  Buffer<uint8_t> workspace;
  bool workspaceFilled = false;
};

class Pool2dImplementation final : public LayerImpl {
  void prepare(LayerContext &ctx, Layer &l) const override {
    Pool2dDesc d = l.desc<Pool2dDesc>();
    const int64_t *in = l.inputs[0]->source.shape;
    if (d.kind < 0 || d.kind >= kPoolKinds)
      throw Error("layer '" + l.name + "': pooling kind " +
                  std::to_string(d.kind) + " is not one this runtime knows");
    Pool2dShape pool;
    pool.max = d.kind == int64_t(PoolKind::Max);
    pool.countIncludePad = d.count_include_pad != 0;
    pool.window = {in[0],
                   in[1],
                   in[2],
                   in[3],
                   d.kernel[0],
                   d.kernel[1],
                   d.stride[0],
                   d.stride[1],
                   d.padding[0],
                   d.padding[1],
                   d.padding[2],
                   d.padding[3],
                   1,
                   1};
    Window2d &w = pool.window;
    // Ceil mode: the last window may overhang the bottom and right edges.
    int64_t extraH = (l.out.shape[2] - 1) * w.strideH + w.kh -
                     (w.h + w.padTop + w.padBottom);
    int64_t extraW = (l.out.shape[3] - 1) * w.strideW + w.kw -
                     (w.w + w.padLeft + w.padRight);
    if ((extraH > 0 || extraW > 0) && !pool.max && pool.countIncludePad)
      throw Error("layer '" + l.name + "': average pooling with ceil_mode " +
                  "and count_include_pad is not supported by the CPU runtime");
    w.padBottom += std::max<int64_t>(extraH, 0);
    w.padRight += std::max<int64_t>(extraW, 0);
    if (w.outH() != l.out.shape[2] || w.outW() != l.out.shape[3])
      throw Error("layer '" + l.name + "': output shape does not match " +
                  "its window");
    auto state = std::make_unique<PoolState>();
    if (l.task >= 0) {
      WindowTile t = windowTile(w, l.tile, l.tile.lo[1], l.tile.hi[1]);
      state->in = t.in;
      state->shape = pool;
      state->shape.window = t.window;
    }
    l.state = std::move(state);
  }

  Box inputBox(const Layer &l, const Edge &, const Box &) const override {
    return l.stateAs<PoolState>().in;
  }

  void forward(LayerContext &ctx, Layer &l) const override {
    PoolState &state = l.stateAs<PoolState>();
    Pool2dShape s = withLayouts(state.shape, *l.inputs[0], l);
    if (state.workspace.empty())
      state.workspace.assign(
          ctx.device(),
          kernelsOf<Pool2dKernels>(ctx.device()).workspaceBytes(s));
    KernelTimer k(ctx.timers());
    kernelsOf<Pool2dKernels>(ctx.device())
        .forward(s, l.inputs[0]->in, l.value.data(), state.workspace.data());
    state.workspaceFilled = !state.workspace.empty();
  }

  bool writesWholeInputGradients() const override { return true; }
  bool takesBlockedLayouts(const Layer &, int64_t) const override {
    return true;
  }

  void backward(LayerContext &ctx, Layer &l) const override {
    Edge &in = *l.inputs[0];
    if (!in.dIn)
      return;
    PoolState &state = l.stateAs<PoolState>();
    KernelTimer k(ctx.timers());
    kernelsOf<Pool2dKernels>(ctx.device())
        .backward(withLayouts(state.shape, in, l), in.in, l.grad.data(), in.dIn,
                  state.workspaceFilled ? state.workspace.data() : nullptr);
  }
};

} // namespace

const LayerImpl &Pool2dImpl() {
  static const Pool2dImplementation impl;
  return impl;
}

} // namespace hdrt::exec
