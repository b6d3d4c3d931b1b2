//===- Flatten.cpp - N x C x H x W to N x (C*H*W) on this rank's tile -----===//
//
// A tile of features reads the whole channels around them: its input box is
// the bounding box of its features, and each sample's row of the box holds
// the tile's features at a fixed offset.
//
//===----------------------------------------------------------------------===//

#include "../LayerImpl.h"

namespace hdrt::exec {

namespace {

/// Where a flatten tile's features lie in its input box.
struct FlattenRows {
  int64_t samples, features, rowIn, skip;

  FlattenRows(const Layer &l, const Edge &in) {
    int64_t hw = in.source.shape[2] * in.source.shape[3];
    samples = extent(l.tile, 0);
    features = extent(l.tile, 1);
    rowIn = in.box.volume() / extent(in.box, 0);
    skip = l.tile.lo[1] - in.box.lo[1] * hw;
  }
};

class FlattenImplementation final : public LayerImpl {
  Box inputBox(const Layer &l, const Edge &e, const Box &whole) const override {
    int64_t hw = e.source.shape[2] * e.source.shape[3];
    const Box &t = l.tile;
    Box b = whole;
    b.lo[0] = t.lo[0];
    b.hi[0] = t.hi[0];
    b.lo[1] = t.lo[1] / hw;
    b.hi[1] = (t.hi[1] + hw - 1) / hw;
    return b;
  }

  void forward(LayerContext &ctx, Layer &l) const override {
    KernelTimer k(ctx.timers());
    Edge &in = *l.inputs[0];
    FlattenRows r(l, in);
    ctx.device().copyRows(l.value.data(), r.features, in.in + r.skip, r.rowIn,
                          r.samples, r.features);
  }

  void backward(LayerContext &ctx, Layer &l) const override {
    Edge &in = *l.inputs[0];
    if (!in.dIn)
      return;
    KernelTimer k(ctx.timers());
    FlattenRows r(l, in);
    ctx.device().fill(in.dIn, in.box.volume(), 0.0f);
    ctx.device().copyRows(in.dIn + r.skip, r.rowIn, l.grad.data(), r.features,
                          r.samples, r.features);
  }
};

} // namespace

const LayerImpl &FlattenImpl() {
  static const FlattenImplementation impl;
  return impl;
}

} // namespace hdrt::exec
