//===- Activation.cpp - hd.activation on this rank's tile -----------------===//
//
// Clip, sigmoid, hard sigmoid and swish, SiLU and GELU: the function and its
// gradient are kernels/Activation/ActivationKernels.h's, on every device.
//
//===----------------------------------------------------------------------===//

#include "../LayerImpl.h"

#include "kernels/Activation/ActivationKernels.h"

namespace hdrt::exec {

namespace {

Activation activationOf(const Layer &l) {
  ActivationDesc d = l.desc<ActivationDesc>();
  return {ActivationFunction(d.function), float(d.alpha), float(d.beta)};
}

class ActivationImplementation final : public LayerImpl {
  void prepare(LayerContext &, Layer &l) const override {
    if (!isActivationFunction(l.desc<ActivationDesc>().function))
      throw Error("layer '" + l.name + "': activation function " +
                  std::to_string(l.desc<ActivationDesc>().function) +
                  " is not one this runtime knows");
  }

  void forward(LayerContext &ctx, Layer &l) const override {
    KernelTimer k(ctx.timers());
    kernelsOf<ActivationKernels>(ctx.device())
        .forward(activationOf(l), l.tile.volume(), l.inputs[0]->in,
                 l.value.data());
  }

  bool writesWholeInputGradients() const override { return true; }

  void backward(LayerContext &ctx, Layer &l) const override {
    Edge &in = *l.inputs[0];
    if (!in.dIn)
      return;
    KernelTimer k(ctx.timers());
    kernelsOf<ActivationKernels>(ctx.device())
        .backward(activationOf(l), l.tile.volume(), in.in, l.grad.data(),
                  in.dIn);
  }
};

} // namespace

const LayerImpl &ActivationImpl() {
  static const ActivationImplementation impl;
  return impl;
}

} // namespace hdrt::exec
