//===- Concat.cpp - concatenation along channels on this rank's tile ------===//
//
// Each operand's input box is the part of the tile whose channels fall in
// that operand's range, in the operand's own channel numbering; a tile may
// hold none of an operand's channels. An operand's box spans the tile's
// samples, rows and columns, so per sample it is one contiguous run of the
// tile, at the same offset in NCHW and in a blocked layout (nChw<B>c)
// whose blocks no operand's range cuts: the same copies serve both.
//
//===----------------------------------------------------------------------===//

#include "../LayerImpl.h"

#include <algorithm>

namespace hdrt::exec {

namespace {

struct ConcatState : LayerState {
  /// Where each operand's channels start in the output.
  std::vector<int64_t> offsets;
};

class ConcatImplementation final : public LayerImpl {
  void prepare(LayerContext &ctx, Layer &l) const override {
    auto state = std::make_unique<ConcatState>();
    int64_t offset = 0;
    for (const Edge *e : l.inputs) {
      state->offsets.push_back(offset);
      offset += e->source.shape[1];
    }
    if (offset != l.out.shape[1])
      throw Error("layer '" + l.name + "': its inputs have " +
                  std::to_string(offset) + " channels, its output " +
                  std::to_string(l.out.shape[1]));
    l.state = std::move(state);
  }

  Box inputBox(const Layer &l, const Edge &e, const Box &) const override {
    int64_t offset = l.stateAs<ConcatState>().offsets[size_t(e.operand)];
    int64_t channels = e.source.shape[1];
    const Box &t = l.tile;
    Box b = t;
    b.lo[1] = std::clamp(t.lo[1] - offset, int64_t(0), channels);
    b.hi[1] = std::clamp(t.hi[1] - offset, b.lo[1], channels);
    return b;
  }

  // Every operand starts a block of the tile's channels (their counts are
  // whole blocks wherever a layout is blocked).
  bool takesBlockedLayouts(const Layer &l, int64_t block) const override {
    for (const Edge *e : l.inputs)
      if (e->hasBox && (inOutput(l, *e).lo[1] - l.tile.lo[1]) % block != 0)
        return false;
    return true;
  }
  bool keepsLayout() const override { return true; }

  void forward(LayerContext &ctx, Layer &l) const override {
    KernelTimer k(ctx.timers());
    for (const Edge *e : l.inputs)
      if (e->hasBox) {
        Box b = inOutput(l, *e);
        ctx.device().copyRegion(e->in, b, l.value.data(), l.tile, b);
      }
  }

  void backward(LayerContext &ctx, Layer &l) const override {
    KernelTimer k(ctx.timers());
    for (const Edge *e : l.inputs)
      if (e->hasBox && e->dIn) {
        Box b = inOutput(l, *e);
        ctx.device().copyRegion(l.grad.data(), l.tile, e->dIn, b, b);
      }
  }

  /// An operand's input box in the concatenation's output coordinates.
  static Box inOutput(const Layer &l, const Edge &e) {
    int64_t offset = l.stateAs<ConcatState>().offsets[size_t(e.operand)];
    Box b = e.box;
    b.lo[1] += offset;
    b.hi[1] += offset;
    return b;
  }
};

} // namespace

const LayerImpl &ConcatImpl() {
  static const ConcatImplementation impl;
  return impl;
}

} // namespace hdrt::exec
