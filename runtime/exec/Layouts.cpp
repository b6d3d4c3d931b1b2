//===- Layouts.cpp - which activation tiles stay in the blocked layout ----===//
//
// oneDNN's convolutions and pooling run on nChw16c (nChw8c without
// AVX-512); on NCHW tiles each call reorders its input, output and their
// gradients, 14% of a ResNet-50 step on one process. So a tile this rank
// keeps stays blocked between layers where every reader takes it as it is:
// on this rank (in place, or a local copy of a box of whole channel
// blocks), by a kind whose kernels take the layout
// (LayerImpl::takesBlockedLayouts: convolution, pooling, batch norm, ReLU,
// add, concatenation of whole blocks). What is sent to or from other ranks
// or read by other kinds stays NCHW, the layout of transfers, the loss,
// checkpoints and every other kernel. Layouts change no value: the
// kernels compute the same sums, a few in another order.
//
//===----------------------------------------------------------------------===//

#include "RankState.h"

#include "LayerImpl.h"

#include "hdrt/hdrt.h"

namespace hdrt::exec {

void RankState::chooseLayouts() {
  const int64_t block = device_.channelBlock();
  if (block == 1 || !options_.blockedLayouts)
    return;
  // A profiled layer stands alone. Where its configuration splits only
  // the samples, its neighbours in a step mostly do too and read its tiles
  // in place: it is timed blocked. Any other split mostly meets transfers,
  // which keep its tiles NCHW (on ResNet-50 split over channels, timing it
  // blocked made the model 15% fast).
  auto samplesOnly = [](const Partition &p) {
    for (int d = 1; d < p.rank; ++d)
      if (p.degrees[d] != 1)
        return false;
    return true;
  };
  auto takesBlocked = [&](const Layer &l, const Box &tile) {
    return l.task >= 0 && tile.rank == 4 && extent(tile, 1) % block == 0 &&
           l.impl->takesBlockedLayouts(l, block) &&
           (!options_.profiling || samplesOnly(l.out));
  };
  std::vector<bool> blocked(network_.layers().size());
  for (const Layer &l : network_.layers())
    blocked[size_t(l.id)] = !l.impl->isLoss() && takesBlocked(l, l.tile) &&
                            (l.consumers > 0 || options_.profiling);
  // A reader takes the tile as it is: in place, or a box of it this rank
  // copies locally (gatherLocal, or a transfer that moves nothing between
  // ranks) whose channels are whole blocks, as a strided convolution's box
  // that drops the last row.
  auto aligned = [&](const Box &b) {
    return b.lo[1] % block == 0 && b.hi[1] % block == 0;
  };
  auto readsAsItIs = [&](const Edge &e) {
    const Layer &p = network_.layers()[size_t(e.producer)];
    bool local =
        e.inAliased || (e.hasBox && p.task >= 0 && p.tile.contains(e.box) &&
                        aligned(p.tile) && aligned(e.box));
    for (const mpi::Move &m : e.plan)
      local = local && m.src != rank_ && m.dst != rank_;
    return local && takesBlocked(*e.consumer, e.box);
  };
  for (const Edge &e : network_.edges())
    if (e.producer >= 0 && !readsAsItIs(e))
      blocked[size_t(e.producer)] = false;
  // The images come in NCHW; a profile's stand-in operands take the layout
  // their consumer would find in a step.
  auto inputBlocked = [&](const Edge &e) {
    if (e.producer >= 0)
      return blocked[size_t(e.producer)] && readsAsItIs(e);
    return options_.profiling && e.producer == HDRT_IMAGES && e.hasBox &&
           takesBlocked(*e.consumer, e.box);
  };
  // Where a kind keeps one layout from input to output, a plain tile on
  // either side makes the other plain; repeat until nothing changes.
  for (bool changed = true; changed;) {
    changed = false;
    for (const Layer &l : network_.layers()) {
      if (l.task < 0 || !l.impl->keepsLayout())
        continue;
      bool all = blocked[size_t(l.id)];
      for (const Edge *e : l.inputs)
        all = all && inputBlocked(*e);
      if (all)
        continue;
      auto unblock = [&](int64_t id) {
        changed = changed || blocked[size_t(id)];
        blocked[size_t(id)] = false;
      };
      unblock(l.id);
      for (const Edge *e : l.inputs)
        if (e->producer >= 0)
          unblock(e->producer);
    }
  }
  for (Layer &l : network_.layers())
    l.block = blocked[size_t(l.id)] ? block : 1;
  for (Edge &e : network_.edges()) {
    bool sameAsConsumer = e.producer < 0 && e.consumer->impl->keepsLayout();
    e.block = sameAsConsumer ? e.consumer->block : inputBlocked(e) ? block : 1;
  }
}

} // namespace hdrt::exec
