//===- ChannelShuffle.cpp - ShuffleNet's shuffle on this rank's tile ------===//
//
// The op never splits channels (its split rule), so each tile holds every
// channel of its samples and pixels. The backward is the inverse shuffle,
// which is the shuffle with C / groups groups.
//
//===----------------------------------------------------------------------===//

#include "../LayerImpl.h"

#include "kernels/ChannelShuffle/ChannelShuffleKernels.h"

namespace hdrt::exec {

namespace {

class ChannelShuffleImplementation final : public LayerImpl {
  void prepare(LayerContext &, Layer &l) const override {
    int64_t groups = l.desc<ChannelShuffleDesc>().groups;
    int64_t channels = l.out.shape[1];
    if (l.out.rank != 4 || groups < 1 || channels % groups != 0)
      throw Error("layer '" + l.name + "': " + std::to_string(groups) +
                  " groups do not divide its " + std::to_string(channels) +
                  " channels");
    if (l.task >= 0 && extent(l.tile, 1) != channels)
      throw Error("layer '" + l.name +
                  "': a channel shuffle cannot split "
                  "its channels");
  }

  void forward(LayerContext &ctx, Layer &l) const override {
    KernelTimer k(ctx.timers());
    const Box &t = l.tile;
    kernelsOf<ChannelShuffleKernels>(ctx.device())
        .shuffle(extent(t, 0), extent(t, 1), spatial(t),
                 l.desc<ChannelShuffleDesc>().groups, l.inputs[0]->in,
                 l.value.data());
  }

  void backward(LayerContext &ctx, Layer &l) const override {
    Edge &in = *l.inputs[0];
    if (!in.dIn)
      return;
    KernelTimer k(ctx.timers());
    const Box &t = l.tile;
    int64_t c = extent(t, 1);
    kernelsOf<ChannelShuffleKernels>(ctx.device())
        .shuffle(extent(t, 0), c, spatial(t),
                 c / l.desc<ChannelShuffleDesc>().groups, l.grad.data(),
                 in.dIn);
  }
};

} // namespace

const LayerImpl &ChannelShuffleImpl() {
  static const ChannelShuffleImplementation impl;
  return impl;
}

} // namespace hdrt::exec
