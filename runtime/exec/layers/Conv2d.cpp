//===- Conv2d.cpp - a convolution on this rank's tile ---------------------===//
//
// The tile's output channels use its shard of the weights; its input box
// holds every input channel of its groups and the halo of its rows and
// columns (hdrt/common/WindowTiles.h).
//
//===----------------------------------------------------------------------===//

#include "../LayerImpl.h"

#include "kernels/Conv2d/Conv2dKernels.h"
#include "kernels/PerChannel/PerChannelKernels.h"

#include "hdrt/common/WindowTiles.h"

#include <cmath>

namespace hdrt::exec {

namespace {

/// This rank's tile: the input box it reads and its kernel call.
struct ConvState : LayerState {
  Box in;
  Conv2dShape shape;
};

/// The window over the whole input, from the descriptor and input shape.
Window2d wholeWindow(const Layer &l) {
  Conv2dDesc d = l.desc<Conv2dDesc>();
  const int64_t *in = l.inputs[0]->source.shape;
  return {in[0],        in[1],        in[2],         in[3],        d.kernel[0],
          d.kernel[1],  d.stride[0],  d.stride[1],   d.padding[0], d.padding[1],
          d.padding[2], d.padding[3], d.dilation[0], d.dilation[1]};
}

/// The tile of output box `out` (n, k, y, x): it reads every input channel
/// of the groups its output channels use (a channel split of a grouped
/// convolution keeps groups whole).
ConvState convTile(const Layer &l, const Box &out) {
  Window2d whole = wholeWindow(l);
  Conv2dDesc d = l.desc<Conv2dDesc>();
  int64_t outPerGroup = d.out_channels / d.groups;
  int64_t inPerGroup = whole.c / d.groups;
  int64_t firstGroup = out.lo[1] / outPerGroup;
  int64_t lastGroup = (out.hi[1] - 1) / outPerGroup + 1;
  WindowTile t =
      windowTile(whole, out, firstGroup * inPerGroup, lastGroup * inPerGroup);
  ConvState s;
  s.in = t.in;
  s.shape.window = t.window;
  s.shape.outChannels = out.hi[1] - out.lo[1];
  s.shape.groups = lastGroup - firstGroup;
  return s;
}

/// A tile whose windows lie entirely in the padding reads no input: its
/// output is the bias.
bool readsNothing(const ConvState &s) { return s.in.volume() == 0; }

class Conv2dImplementation final : public LayerImpl {
  void prepare(LayerContext &ctx, Layer &l) const override {
    Window2d whole = wholeWindow(l);
    if (whole.outH() != l.out.shape[2] || whole.outW() != l.out.shape[3])
      throw Error("layer '" + l.name + "': output shape does not match " +
                  "its window");
    auto state = std::make_unique<ConvState>();
    if (l.task >= 0)
      *state = convTile(l, l.tile);
    l.state = std::move(state);
  }

  std::vector<ParamSpec> params(const Layer &l) const override {
    Window2d w = wholeWindow(l);
    Conv2dDesc d = l.desc<Conv2dDesc>();
    int64_t k = d.out_channels, perGroup = w.c / d.groups;
    // PyTorch's default: uniform in +-1/sqrt(fan-in) for weights and bias.
    float bound = 1.0f / std::sqrt(float(perGroup * w.kh * w.kw));
    std::vector<ParamSpec> params = {
        {"weight", {k, perGroup, w.kh, w.kw}, 0, bound}};
    if (d.bias)
      params.push_back({"bias", {k}, 0, bound});
    return params;
  }

  Box inputBox(const Layer &l, const Edge &, const Box &) const override {
    return l.stateAs<ConvState>().in;
  }

  void forward(LayerContext &ctx, Layer &l) const override {
    KernelTimer k(ctx.timers());
    const ConvState &s = l.stateAs<ConvState>();
    const float *bias =
        l.params.size() > 1 ? l.params[1].value.data() : nullptr;
    if (readsNothing(s)) {
      kernelsOf<PerChannelKernels>(ctx.device())
          .fill(extent(l.tile, 0), extent(l.tile, 1), spatial(l.tile), bias,
                l.value.data());
      return;
    }
    kernelsOf<Conv2dKernels>(ctx.device())
        .forward(withLayouts(s.shape, *l.inputs[0], l), l.inputs[0]->in,
                 l.params[0].value.data(), bias, l.value.data());
  }

  bool writesWholeInputGradients() const override { return true; }
  // Not a tile in the padding: its fill and bias sums are NCHW loops.
  bool takesBlockedLayouts(const Layer &l, int64_t) const override {
    return !readsNothing(l.stateAs<ConvState>());
  }

  void backward(LayerContext &ctx, Layer &l) const override {
    KernelTimer k(ctx.timers());
    const ConvState &s = l.stateAs<ConvState>();
    Edge &in = *l.inputs[0];
    float *dBias = l.params.size() > 1 ? l.params[1].grad.data() : nullptr;
    if (readsNothing(s)) {
      ctx.device().fill(l.params[0].grad.data(), l.params[0].grad.size(), 0.0f);
      if (dBias)
        kernelsOf<PerChannelKernels>(ctx.device())
            .sum(extent(l.tile, 0), extent(l.tile, 1), spatial(l.tile),
                 l.grad.data(), dBias);
      return;
    }
    Conv2dKernels &conv = kernelsOf<Conv2dKernels>(ctx.device());
    Conv2dShape shape = withLayouts(s.shape, in, l);
    conv.backwardWeights(shape, in.in, l.grad.data(), l.params[0].grad.data(),
                         dBias);
    if (in.dIn) // The first layer has no input gradient to compute.
      conv.backwardData(shape, l.grad.data(), l.params[0].value.data(), in.dIn);
  }
};

} // namespace

const LayerImpl &Conv2dImpl() {
  static const Conv2dImplementation impl;
  return impl;
}

} // namespace hdrt::exec
