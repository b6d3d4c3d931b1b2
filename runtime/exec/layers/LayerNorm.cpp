//===- LayerNorm.cpp - layer norm over the channels of each pixel ---------===//
//
// Statistics span every task that holds the same pixels: each tile sums its
// channels of each pixel, the sums are all-reduced over `statsComm` (the
// tasks that split the channels), and each tile normalizes with the
// pixel's values over all channels. The scale and shift gradients are each
// tile's share; the gradient sync sums the replicas' shares.
//
//===----------------------------------------------------------------------===//

#include "../LayerImpl.h"

#include "kernels/LayerNorm/LayerNormKernels.h"

namespace hdrt::exec {

namespace {

struct LayerNormState : LayerState {
  // Per-pixel sums (2 per pixel) and the statistics of the current step.
  Buffer<double> sums;
  Buffer<float> mean, invStd;
};

class LayerNormImplementation final : public LayerImpl {
  void prepare(LayerContext &ctx, Layer &l) const override {
    if (l.out.rank != 4)
      throw Error("layer '" + l.name + "': layer norm needs a 4-D tensor");
    auto state = std::make_unique<LayerNormState>();
    if (l.task >= 0) {
      int64_t pixels = extent(l.tile, 0) * spatial(l.tile);
      state->sums.assign(ctx.device(), 2 * pixels);
      state->mean.assign(ctx.device(), pixels);
      state->invStd.assign(ctx.device(), pixels);
    }
    l.state = std::move(state);
  }

  std::vector<ParamSpec> params(const Layer &l) const override {
    // The identity, as PyTorch starts it.
    int64_t c = l.out.shape[1];
    return {{"scale", {c}, 1, 0}, {"shift", {c}, 0, 0}};
  }

  void forward(LayerContext &ctx, Layer &l) const override {
    LayerNormState &s = l.stateAs<LayerNormState>();
    const Box &t = l.tile;
    int64_t n = extent(t, 0), c = extent(t, 1), hw = spatial(t);
    const float *x = l.inputs[0]->in;
    {
      KernelTimer k(ctx.timers());
      kernelsOf<LayerNormKernels>(ctx.device())
          .partialSums(n, c, hw, x, s.sums.data());
    }
    ctx.syncStatistics(l, s.sums.data(), 2 * n * hw, ElementType::F64,
                       ReduceOp::Sum);
    KernelTimer k(ctx.timers());
    kernelsOf<LayerNormKernels>(ctx.device())
        .forward(n, c, hw, l.out.shape[1], l.desc<LayerNormDesc>().epsilon,
                 s.sums.data(), x, l.params[0].value.data(),
                 l.params[1].value.data(), s.mean.data(), s.invStd.data(),
                 l.value.data());
  }

  void backward(LayerContext &ctx, Layer &l) const override {
    LayerNormState &s = l.stateAs<LayerNormState>();
    const Box &t = l.tile;
    int64_t n = extent(t, 0), c = extent(t, 1), hw = spatial(t);
    Edge &in = *l.inputs[0];
    if (in.dIn) {
      {
        KernelTimer k(ctx.timers());
        kernelsOf<LayerNormKernels>(ctx.device())
            .backwardPartialSums(n, c, hw, in.in, l.grad.data(), s.mean.data(),
                                 s.invStd.data(), l.params[0].value.data(),
                                 s.sums.data());
      }
      ctx.syncStatistics(l, s.sums.data(), 2 * n * hw, ElementType::F64,
                         ReduceOp::Sum);
    }
    KernelTimer k(ctx.timers());
    kernelsOf<LayerNormKernels>(ctx.device())
        .backward(n, c, hw, l.out.shape[1], in.in, l.grad.data(), s.mean.data(),
                  s.invStd.data(), l.params[0].value.data(), s.sums.data(),
                  in.dIn, l.params[0].grad.data(), l.params[1].grad.data());
  }
};

} // namespace

const LayerImpl &LayerNormImpl() {
  static const LayerNormImplementation impl;
  return impl;
}

} // namespace hdrt::exec
