//===- Linear.cpp - a fully-connected layer on this rank's tile -----------===//
//
// A tile of samples x output features reads its samples' every input
// feature; with a channel split, backward computes the tile's part of the
// input gradient and the reversed transfer sums the parts.
//
//===----------------------------------------------------------------------===//

#include "../LayerImpl.h"

#include "kernels/Linear/LinearKernels.h"

#include <cmath>

namespace hdrt::exec {

namespace {

class LinearImplementation final : public LayerImpl {
  std::vector<ParamSpec> params(const Layer &l) const override {
    LinearDesc d = l.desc<LinearDesc>();
    int64_t features = l.inputs[0]->source.shape[1];
    // PyTorch's default: uniform in +-1/sqrt(fan-in) for weights and bias.
    float bound = 1.0f / std::sqrt(float(features));
    std::vector<ParamSpec> params = {
        {"weight", {d.out_features, features}, 0, bound}};
    if (d.bias)
      params.push_back({"bias", {d.out_features}, 0, bound});
    return params;
  }

  Box inputBox(const Layer &l, const Edge &, const Box &whole) const override {
    Box b = whole;
    b.lo[0] = l.tile.lo[0];
    b.hi[0] = l.tile.hi[0];
    return b;
  }

  void forward(LayerContext &ctx, Layer &l) const override {
    KernelTimer k(ctx.timers());
    Edge &in = *l.inputs[0];
    const float *bias =
        l.params.size() > 1 ? l.params[1].value.data() : nullptr;
    kernelsOf<LinearKernels>(ctx.device())
        .forward(extent(l.tile, 0), extent(in.box, 1), extent(l.tile, 1), in.in,
                 l.params[0].value.data(), bias, l.value.data());
  }

  void backward(LayerContext &ctx, Layer &l) const override {
    KernelTimer k(ctx.timers());
    Edge &in = *l.inputs[0];
    int64_t n = extent(l.tile, 0), f = extent(in.box, 1), c = extent(l.tile, 1);
    float *dBias = l.params.size() > 1 ? l.params[1].grad.data() : nullptr;
    kernelsOf<LinearKernels>(ctx.device())
        .backwardWeights(n, f, c, in.in, l.grad.data(), l.params[0].grad.data(),
                         dBias);
    if (in.dIn)
      kernelsOf<LinearKernels>(ctx.device())
          .backwardData(n, f, c, l.grad.data(), l.params[0].value.data(),
                        in.dIn);
  }
};

} // namespace

const LayerImpl &LinearImpl() {
  static const LinearImplementation impl;
  return impl;
}

} // namespace hdrt::exec
