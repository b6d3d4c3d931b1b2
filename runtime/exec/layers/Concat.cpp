//===- Concat.cpp - concatenation along channels on this rank's tile ------===//
//
// Each operand's input box is the part of the tile whose channels fall in
// that operand's range, in the operand's own channel numbering; a tile may
// hold none of an operand's channels.
//
//===----------------------------------------------------------------------===//

#include "../LayerImpl.h"

#include <algorithm>

namespace hdrt::exec {

namespace {

/// An operand's input box in the concatenation's output coordinates.
Box inOutput(const Edge &e) {
  Box b = e.box;
  b.lo[1] += e.channelOffset;
  b.hi[1] += e.channelOffset;
  return b;
}

class ConcatImplementation final : public LayerImpl {
  Box inputBox(const Layer &l, Edge &e, const Box &) const override {
    e.channelOffset = 0;
    for (int i = 0; i < e.operand; ++i)
      e.channelOffset += l.inputs[i]->source.shape[1];
    const Box &t = l.tile;
    int64_t channels = e.source.shape[1];
    Box b = t;
    b.lo[1] = std::clamp(t.lo[1] - e.channelOffset, int64_t(0), channels);
    b.hi[1] = std::clamp(t.hi[1] - e.channelOffset, b.lo[1], channels);
    return b;
  }

  void forward(Program &p, Layer &l) const override {
    KernelTimer k(p.timers());
    for (Edge *e : l.inputs)
      if (e->hasBox) {
        Box b = inOutput(*e);
        p.device().copyRegion(e->in, b, l.value.data(), l.tile, b);
      }
  }

  void backward(Program &p, Layer &l) const override {
    KernelTimer k(p.timers());
    for (Edge *e : l.inputs)
      if (e->hasBox && e->dIn) {
        Box b = inOutput(*e);
        p.device().copyRegion(l.grad.data(), l.tile, e->dIn, b, b);
      }
  }
};

} // namespace

const LayerImpl &ConcatImpl() {
  static const ConcatImplementation impl;
  return impl;
}

} // namespace hdrt::exec
