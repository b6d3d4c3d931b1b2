//===- Pool2d.cpp - max or average pooling on this rank's tile ------------===//

#include "../LayerImpl.h"

#include "hdrt/common/WindowTiles.h"

#include <algorithm>

namespace hdrt::exec {

namespace {

struct PoolState : LayerState {
  PoolTile tile;
  /// Where max pooling's forward leaves each window's maximum for the
  /// backward (allocated at the first forward, when the layouts are
  /// known), and whether this step's forward filled it.
  Buffer<uint8_t> workspace;
  bool workspaceFilled = false;
};

class Pool2dImplementation final : public LayerImpl {
  void prepare(Program &p, Layer &l) const override {
    Pool2dDesc d = l.desc<Pool2dDesc>();
    const int64_t *in = l.inputs[0]->source.shape;
    Pool2dLayer pool;
    pool.max = d.kind == 0; // hd's PoolKind::Max
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
    if (l.task >= 0)
      state->tile = poolTile(pool, l.tile);
    l.state = std::move(state);
  }

  Box inputBox(const Layer &l, const Edge &, const Box &) const override {
    return l.stateAs<PoolState>().tile.in;
  }

  void forward(Program &p, Layer &l) const override {
    PoolState &state = l.stateAs<PoolState>();
    Pool2dShape s = withLayouts(state.tile.shape, *l.inputs[0], l);
    if (state.workspace.empty())
      state.workspace.assign(p.device(), p.device().pool2dWorkspaceBytes(s));
    KernelTimer k(p.timers());
    p.device().pool2dForward(s, l.inputs[0]->in, l.value.data(),
                             state.workspace.data());
    state.workspaceFilled = !state.workspace.empty();
  }

  bool writesWholeInputGradients() const override { return true; }
  bool takesBlockedLayouts(const Layer &, int64_t) const override {
    return true;
  }

  void backward(Program &p, Layer &l) const override {
    Edge &in = *l.inputs[0];
    if (!in.dIn)
      return;
    PoolState &state = l.stateAs<PoolState>();
    KernelTimer k(p.timers());
    p.device().pool2dBackward(
        withLayouts(state.tile.shape, in, l), in.in, l.grad.data(), in.dIn,
        state.workspaceFilled ? state.workspace.data() : nullptr);
  }
};

} // namespace

const LayerImpl &Pool2dImpl() {
  static const Pool2dImplementation impl;
  return impl;
}

} // namespace hdrt::exec
