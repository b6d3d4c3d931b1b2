//===- Dropout.cpp - dropout with a partition-independent mask ------------===//
//
// Each element's mask comes from (seed, step, layer, its global index), so
// every split of the layer drops the same elements; backward applies the
// same mask to the gradient.
//
//===----------------------------------------------------------------------===//

#include "../LayerImpl.h"

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
  void forward(Program &p, Layer &l) const override {
    KernelTimer k(p.timers());
    if (!p.training()) { // inference keeps every element
      int64_t volume = l.tile.volume();
      p.device().copyRows(l.value.data(), volume, l.inputs[0]->in, volume, 1,
                          volume);
      return;
    }
    apply(p, l, l.inputs[0]->in, l.value.data());
  }

  void backward(Program &p, Layer &l) const override {
    Edge &in = *l.inputs[0];
    if (!in.dIn)
      return;
    KernelTimer k(p.timers());
    apply(p, l, l.grad.data(), in.dIn);
  }

  static void apply(Program &p, const Layer &l, const float *in, float *out) {
    p.device().dropout(regionOf(l.out, l.tile), p.options().seed,
                       streamOf(kDropout, p.step(), l.id),
                       float(l.desc<DropoutDesc>().ratio), in, out);
  }
};

} // namespace

const LayerImpl &DropoutImpl() {
  static const DropoutImplementation impl;
  return impl;
}

} // namespace hdrt::exec
