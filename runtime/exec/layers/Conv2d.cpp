//===- Conv2d.cpp - a convolution on this rank's tile ---------------------===//
//
// The tile's output channels use its shard of the weights; its input box
// holds every input channel of its groups and the halo of its rows and
// columns (hdrt/common/WindowTiles.h).
//
//===----------------------------------------------------------------------===//

#include "../LayerImpl.h"

#include "hdrt/common/WindowTiles.h"

#include <cmath>

namespace hdrt::exec {

namespace {

struct ConvState : LayerState {
  ConvTile tile;
};

/// The whole layer, from its descriptor and input shape.
Conv2dLayer wholeLayer(const Layer &l) {
  Conv2dDesc d = l.desc<Conv2dDesc>();
  const int64_t *in = l.inputs[0]->source.shape;
  return {in[0],          in[1],         in[2],         in[3],
          d.out_channels, d.kernel[0],   d.kernel[1],   d.stride[0],
          d.stride[1],    d.padding[0],  d.padding[1],  d.padding[2],
          d.padding[3],   d.dilation[0], d.dilation[1], d.groups};
}

/// A tile whose windows lie entirely in the padding reads no input: its
/// output is the bias.
bool readsNothing(const ConvState &s) { return s.tile.in.volume() == 0; }

class Conv2dImplementation final : public LayerImpl {
  void prepare(Program &p, Layer &l) const override {
    Conv2dLayer c = wholeLayer(l);
    if (c.outH() != l.out.shape[2] || c.outW() != l.out.shape[3])
      throw Error("layer '" + l.name + "': output shape does not match " +
                  "its window");
    auto state = std::make_unique<ConvState>();
    if (l.task >= 0)
      state->tile = convTile(c, l.tile);
    l.state = std::move(state);
  }

  std::vector<ParamSpec> params(const Layer &l) const override {
    Conv2dLayer c = wholeLayer(l);
    // PyTorch's default: uniform in +-1/sqrt(fan-in) for weights and bias.
    float bound = 1.0f / std::sqrt(float(c.c / c.groups * c.kh * c.kw));
    std::vector<ParamSpec> params = {
        {"weight", {c.k, c.c / c.groups, c.kh, c.kw}, 0, bound}};
    if (l.desc<Conv2dDesc>().bias)
      params.push_back({"bias", {c.k}, 0, bound});
    return params;
  }

  Box inputBox(const Layer &l, const Edge &, const Box &) const override {
    return l.stateAs<ConvState>().tile.in;
  }

  void forward(Program &p, Layer &l) const override {
    KernelTimer k(p.timers());
    const ConvState &s = l.stateAs<ConvState>();
    const float *bias =
        l.params.size() > 1 ? l.params[1].value.data() : nullptr;
    if (readsNothing(s)) {
      p.device().fillChannels(extent(l.tile, 0), extent(l.tile, 1),
                              spatial(l.tile), bias, l.value.data());
      return;
    }
    p.device().conv2dForward(withLayouts(s.tile.shape, *l.inputs[0], l),
                             l.inputs[0]->in,
                             l.params[0].value.data(), bias, l.value.data());
  }

  bool writesWholeInputGradients() const override { return true; }
  // Not a tile in the padding: its fill and bias sums are NCHW loops.
  bool takesBlockedLayouts(const Layer &l, int64_t) const override {
    return !readsNothing(l.stateAs<ConvState>());
  }

  void backward(Program &p, Layer &l) const override {
    KernelTimer k(p.timers());
    const ConvState &s = l.stateAs<ConvState>();
    Edge &in = *l.inputs[0];
    Device &device = p.device();
    float *dBias = l.params.size() > 1 ? l.params[1].grad.data() : nullptr;
    if (readsNothing(s)) {
      device.fill(l.params[0].grad.data(), l.params[0].grad.size(), 0.0f);
      if (dBias)
        device.sumChannels(extent(l.tile, 0), extent(l.tile, 1),
                           spatial(l.tile), l.grad.data(), dBias);
      return;
    }
    Conv2dShape shape = withLayouts(s.tile.shape, in, l);
    device.conv2dBackwardWeights(shape, in.in, l.grad.data(),
                                 l.params[0].grad.data(), dBias);
    if (in.dIn) // The first layer has no input gradient to compute.
      device.conv2dBackwardData(shape, l.grad.data(),
                                l.params[0].value.data(), in.dIn);
  }
};

} // namespace

const LayerImpl &Conv2dImpl() {
  static const Conv2dImplementation impl;
  return impl;
}

} // namespace hdrt::exec
