//===- ChannelBinary.cpp - hd.channel_binary on this rank's tile ----------===//
//
// An activation and the layer's own per-channel operand: hd.binary with a
// broadcast operand, whose values are the operand's shard repeated for each
// sample of the tile. The operand's gradient is hd.binary's per-row sums,
// summed over the tile's samples; the gradient sync adds the other tasks'
// shares (those that split n, h or w).
//
//===----------------------------------------------------------------------===//

#include "../LayerImpl.h"

#include "kernels/Binary/BinaryKernels.h"
#include "kernels/PerChannel/PerChannelKernels.h"

namespace hdrt::exec {

namespace {

struct ChannelBinaryState : LayerState {
  // The operand per row (sample and channel) of the tile, and its gradient.
  Buffer<float> rows, dRows;
};

ChannelBinaryDesc descOf(const Layer &l) { return l.desc<ChannelBinaryDesc>(); }

class ChannelBinaryImplementation final : public LayerImpl {
  void prepare(LayerContext &ctx, Layer &l) const override {
    if (!isBinaryFunction(descOf(l).function))
      throw Error("layer '" + l.name + "': binary function " +
                  std::to_string(descOf(l).function) +
                  " is not one this runtime knows");
    auto state = std::make_unique<ChannelBinaryState>();
    if (l.task >= 0) {
      int64_t rows = extent(l.tile, 0) * extent(l.tile, 1);
      state->rows.assign(ctx.device(), rows);
      if (!descOf(l).frozen)
        state->dRows.assign(ctx.device(), rows);
    }
    l.state = std::move(state);
  }

  std::vector<ParamSpec> params(const Layer &l) const override {
    // The identity of the function until the model's weights replace it.
    auto f = BinaryFunction(descOf(l).function);
    float identity =
        f == BinaryFunction::Mul || f == BinaryFunction::Div ? 1 : 0;
    return {{"operand",
             {l.out.shape[1]},
             identity,
             0,
             /*trained=*/!descOf(l).frozen}};
  }

  void forward(LayerContext &ctx, Layer &l) const override {
    auto &s = l.stateAs<ChannelBinaryState>();
    int64_t n = extent(l.tile, 0), c = extent(l.tile, 1);
    KernelTimer k(ctx.timers());
    kernelsOf<PerChannelKernels>(ctx.device())
        .fill(n, c, 1, l.params[0].value.data(), s.rows.data());
    kernelsOf<BinaryKernels>(ctx.device())
        .forward(BinaryFunction(descOf(l).function), n * c, spatial(l.tile),
                 /*broadcast=*/true, l.inputs[0]->in, s.rows.data(),
                 l.value.data());
  }

  void backward(LayerContext &ctx, Layer &l) const override {
    auto &s = l.stateAs<ChannelBinaryState>();
    Edge &in = *l.inputs[0];
    bool trained = !descOf(l).frozen;
    if (!in.dIn && !trained)
      return;
    int64_t n = extent(l.tile, 0), c = extent(l.tile, 1);
    KernelTimer k(ctx.timers());
    kernelsOf<BinaryKernels>(ctx.device())
        .backward(BinaryFunction(descOf(l).function), n * c, spatial(l.tile),
                  /*broadcast=*/true, in.in, s.rows.data(), l.grad.data(),
                  in.dIn, trained ? s.dRows.data() : nullptr);
    if (trained)
      kernelsOf<PerChannelKernels>(ctx.device())
          .sum(n, c, 1, s.dRows.data(), l.params[0].grad.data());
  }
};

} // namespace

const LayerImpl &ChannelBinaryImpl() {
  static const ChannelBinaryImplementation impl;
  return impl;
}

} // namespace hdrt::exec
