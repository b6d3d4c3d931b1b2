//===- Slice.cpp - a range of channels on this rank's tile ----------------===//
//
// The input box is the tile shifted by the slice's offset, so it has the
// tile's extents and layout: the forward and backward are plain copies.
//
//===----------------------------------------------------------------------===//

#include "../LayerImpl.h"

namespace hdrt::exec {

namespace {

class SliceImplementation final : public LayerImpl {
  void prepare(LayerContext &, Layer &l) const override {
    const Partition &in = l.inputs[0]->source;
    int64_t offset = l.desc<SliceDesc>().offset;
    bool fits = in.rank == l.out.rank && offset >= 0 &&
                offset + l.out.shape[1] <= in.shape[1];
    for (int d = 0; fits && d < in.rank; ++d)
      fits = d == 1 || in.shape[d] == l.out.shape[d];
    if (!fits)
      throw Error("layer '" + l.name + "': channels from " +
                  std::to_string(offset) + " do not fit its input's shape");
  }

  Box inputBox(const Layer &l, const Edge &, const Box &) const override {
    Box b = l.tile;
    int64_t offset = l.desc<SliceDesc>().offset;
    b.lo[1] += offset;
    b.hi[1] += offset;
    return b;
  }

  void forward(LayerContext &ctx, Layer &l) const override {
    KernelTimer k(ctx.timers());
    int64_t count = l.tile.volume();
    ctx.device().copyRows(l.value.data(), count, l.inputs[0]->in, count, 1,
                          count);
  }

  void backward(LayerContext &ctx, Layer &l) const override {
    Edge &in = *l.inputs[0];
    if (!in.dIn)
      return;
    KernelTimer k(ctx.timers());
    int64_t count = l.tile.volume();
    ctx.device().copyRows(in.dIn, count, l.grad.data(), count, 1, count);
  }
};

} // namespace

const LayerImpl &SliceImpl() {
  static const SliceImplementation impl;
  return impl;
}

} // namespace hdrt::exec
