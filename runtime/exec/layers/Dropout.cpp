//===- Dropout.cpp - dropout with a partition-independent mask ------------===//
//
// Each element's mask comes from (seed, step, layer, its global index), so
// every split of the layer drops the same elements; backward applies the
// same mask to the gradient.
//
//===----------------------------------------------------------------------===//

#include "../LayerImpl.h"
#include "../Streams.h"

#include "kernels/Dropout/DropoutKernels.h"

namespace hdrt::exec {

namespace {

TileRegion regionOf(const Partition &p, const Box &b) {
  TileRegion r;
  r.rank = p.rank;
  for (int d = 0; d < p.rank; ++d) {
    r.shape[d] = p.shape[d];
    r.lo[d] = b.lo[d];
    r.hi[d] = b.hi[d];
  }
  return r;
}

class DropoutImplementation final : public LayerImpl {
  void forward(LayerContext &ctx, Layer &l) const override {
    KernelTimer k(ctx.timers());
    if (!ctx.training()) { // inference keeps every element
      int64_t volume = l.tile.volume();
      ctx.device().copyRows(l.value.data(), volume, l.inputs[0]->in, volume, 1,
                            volume);
      return;
    }
    apply(ctx, l, l.inputs[0]->in, l.value.data());
  }

  void backward(LayerContext &ctx, Layer &l) const override {
    Edge &in = *l.inputs[0];
    if (!in.dIn)
      return;
    KernelTimer k(ctx.timers());
    apply(ctx, l, l.grad.data(), in.dIn);
  }

  static void apply(LayerContext &ctx, const Layer &l, const float *in,
                    float *out) {
    kernelsOf<DropoutKernels>(ctx.device())
        .apply(regionOf(l.out, l.tile), ctx.seed(),
               streamOf(kMasks, ctx.step(), l.id),
               float(l.desc<DropoutDesc>().ratio), in, out);
  }
};

} // namespace

const LayerImpl &DropoutImpl() {
  static const DropoutImplementation impl;
  return impl;
}

} // namespace hdrt::exec
