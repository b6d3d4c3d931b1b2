//===- BatchNorm.cpp - batch norm over the global batch -------------------===//
//
// Statistics span every task that holds the same channels: each tile sums
// its part, the sums are all-reduced over `statsComm`, and each tile
// normalizes with the global values (hdrt/cpu/TileOps.h has the loops).
// Running statistics are not kept yet.
//
//===----------------------------------------------------------------------===//

#include "../LayerImpl.h"

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

  void prepare(Program &p, Layer &l) const override {
    auto state = std::make_unique<BatchNormState>();
    if (l.task >= 0) {
      int64_t c = extent(l.tile, 1);
      state->sums.assign(p.device(), 2 * c);
      state->mean.assign(p.device(), c);
      state->invStd.assign(p.device(), c);
    }
    l.state = std::move(state);
  }

  std::vector<ParamSpec> params(const Layer &l) const override {
    // The identity: scale 1, shift 0.
    return {{"scale", {l.out.shape[1]}, 1, 0},
            {"shift", {l.out.shape[1]}, 0, 0}};
  }

  void forward(Program &p, Layer &l) const override {
    BatchNormState &s = l.stateAs<BatchNormState>();
    const Box &t = l.tile;
    int64_t n = extent(t, 0), c = extent(t, 1), hw = spatial(t);
    const float *x = l.inputs[0]->in;
    {
      KernelTimer k(p.timers());
      p.device().batchNormPartialSums(n, c, hw, x, s.sums.data());
    }
    p.syncStatistics(l, s.sums.data(), 2 * c, ElementType::F64, ReduceOp::Sum);
    KernelTimer k(p.timers());
    p.device().batchNormStatistics(
        c, valuesPerChannel(l.out), l.desc<BatchNormDesc>().epsilon,
        s.sums.data(), s.mean.data(), s.invStd.data());
    p.device().batchNormForward(n, c, hw, x, s.mean.data(), s.invStd.data(),
                                l.params[0].value.data(),
                                l.params[1].value.data(), l.value.data());
  }

  void backward(Program &p, Layer &l) const override {
    BatchNormState &s = l.stateAs<BatchNormState>();
    const Box &t = l.tile;
    int64_t n = extent(t, 0), c = extent(t, 1), hw = spatial(t);
    Edge &in = *l.inputs[0];
    {
      KernelTimer k(p.timers());
      p.device().batchNormBackwardPartialSums(n, c, hw, in.in, l.grad.data(),
                                              s.mean.data(), s.invStd.data(),
                                              s.sums.data());
      // This tile's share of the scale and shift gradients; the gradient
      // sync sums the replicas' shares.
      p.device().batchNormParamGrads(c, s.sums.data(), l.params[0].grad.data(),
                                     l.params[1].grad.data());
    }
    if (!in.dIn)
      return;
    p.syncStatistics(l, s.sums.data(), 2 * c, ElementType::F64, ReduceOp::Sum);
    KernelTimer k(p.timers());
    p.device().batchNormBackwardData(
        n, c, hw, valuesPerChannel(l.out), in.in, l.grad.data(), s.mean.data(),
        s.invStd.data(), l.params[0].value.data(), s.sums.data(), in.dIn);
  }
};

} // namespace

const LayerImpl &BatchNormImpl() {
  static const BatchNormImplementation impl;
  return impl;
}

} // namespace hdrt::exec
