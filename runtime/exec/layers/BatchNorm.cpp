//===- BatchNorm.cpp - batch norm over the global batch -------------------===//
//
// Statistics span every task that holds the same channels: each tile sums
// its part, the sums are all-reduced over `statsComm`, and each tile
// normalizes with the global values (kernels/BatchNorm/).
// Training also updates the running statistics, which every task holding a
// channel updates alike from the same global sums; inference normalizes
// with them.
//
//===----------------------------------------------------------------------===//

#include "../LayerImpl.h"

#include "kernels/BatchNorm/BatchNormKernels.h"

namespace hdrt::exec {

namespace {

struct BatchNormState : LayerState {
  // Per-channel sums (2c) and the statistics of the current step.
  Buffer<double> sums;
  Buffer<float> mean, invStd;
};

/// The statistics average this many values per channel: the global batch
/// times the image.
int64_t valuesPerChannel(const Partition &p) {
  return p.shape[0] * (p.rank == 4 ? p.shape[2] * p.shape[3] : 1);
}

class BatchNormImplementation final : public LayerImpl {

  void prepare(LayerContext &ctx, Layer &l) const override {
    auto state = std::make_unique<BatchNormState>();
    if (l.task >= 0) {
      int64_t c = extent(l.tile, 1);
      state->sums.assign(ctx.device(), 2 * c);
      state->mean.assign(ctx.device(), c);
      state->invStd.assign(ctx.device(), c);
    }
    l.state = std::move(state);
  }

  std::vector<ParamSpec> params(const Layer &l) const override {
    // The identity: scale 1, shift 0; the running statistics of a standard
    // normal, as PyTorch starts them.
    int64_t c = l.out.shape[1];
    return {{"scale", {c}, 1, 0},
            {"shift", {c}, 0, 0},
            {"running_mean", {c}, 0, 0, /*trained=*/false},
            {"running_var", {c}, 1, 0, /*trained=*/false}};
  }

  void forward(LayerContext &ctx, Layer &l) const override {
    BatchNormState &s = l.stateAs<BatchNormState>();
    BatchNormDesc d = l.desc<BatchNormDesc>();
    const Box &t = l.tile;
    int64_t n = extent(t, 0), c = extent(t, 1), hw = spatial(t);
    const float *x = l.inputs[0]->in;
    float *out = l.reluInto ? l.reluInto->value.data() : l.value.data();
    bool relu = l.reluInto != nullptr;
    Param &runningMean = l.params[2], &runningVar = l.params[3];
    if (!ctx.training()) { // the running statistics normalize
      KernelTimer k(ctx.timers());
      kernelsOf<BatchNormKernels>(ctx.device())
          .runningInvStd(c, d.epsilon, runningVar.value.data(),
                         s.invStd.data());
      kernelsOf<BatchNormKernels>(ctx.device())
          .forward(n, c, hw, l.block, x, runningMean.value.data(),
                   s.invStd.data(), l.params[0].value.data(),
                   l.params[1].value.data(), out, relu);
      return;
    }
    {
      KernelTimer k(ctx.timers());
      kernelsOf<BatchNormKernels>(ctx.device())
          .partialSums(n, c, hw, l.block, x, s.sums.data());
    }
    ctx.syncStatistics(l, s.sums.data(), 2 * c, ElementType::F64,
                       ReduceOp::Sum);
    KernelTimer k(ctx.timers());
    kernelsOf<BatchNormKernels>(ctx.device())
        .statistics(c, valuesPerChannel(l.out), d.epsilon, s.sums.data(),
                    s.mean.data(), s.invStd.data());
    kernelsOf<BatchNormKernels>(ctx.device())
        .runningUpdate(c, valuesPerChannel(l.out), d.momentum, s.sums.data(),
                       runningMean.value.data(), runningVar.value.data());
    kernelsOf<BatchNormKernels>(ctx.device())
        .forward(n, c, hw, l.block, x, s.mean.data(), s.invStd.data(),
                 l.params[0].value.data(), l.params[1].value.data(), out, relu);
  }

  bool writesWholeInputGradients() const override { return true; }
  bool takesBlockedLayouts(const Layer &, int64_t) const override {
    return true;
  }
  bool keepsLayout() const override { return true; }
  bool appliesRelu() const override { return true; }

  void backward(LayerContext &ctx, Layer &l) const override {
    BatchNormState &s = l.stateAs<BatchNormState>();
    const Box &t = l.tile;
    int64_t n = extent(t, 0), c = extent(t, 1), hw = spatial(t);
    Edge &in = *l.inputs[0];
    {
      KernelTimer k(ctx.timers());
      kernelsOf<BatchNormKernels>(ctx.device())
          .backwardPartialSums(n, c, hw, l.block, in.in, l.grad.data(),
                               s.mean.data(), s.invStd.data(), s.sums.data());
      // This tile's share of the scale and shift gradients; the gradient
      // sync sums the replicas' shares.
      kernelsOf<BatchNormKernels>(ctx.device())
          .paramGrads(c, s.sums.data(), l.params[0].grad.data(),
                      l.params[1].grad.data());
    }
    if (!in.dIn)
      return;
    ctx.syncStatistics(l, s.sums.data(), 2 * c, ElementType::F64,
                       ReduceOp::Sum);
    KernelTimer k(ctx.timers());
    kernelsOf<BatchNormKernels>(ctx.device())
        .backwardData(n, c, hw, l.block, valuesPerChannel(l.out), in.in,
                      l.grad.data(), s.mean.data(), s.invStd.data(),
                      l.params[0].value.data(), s.sums.data(), in.dIn);
  }
};

} // namespace

const LayerImpl &BatchNormImpl() {
  static const BatchNormImplementation impl;
  return impl;
}

} // namespace hdrt::exec
