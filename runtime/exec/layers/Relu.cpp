//===- Relu.cpp - the rectified linear unit on this rank's tile -----------===//

#include "../LayerImpl.h"

#include "kernels/Relu/ReluKernels.h"

namespace hdrt::exec {

namespace {

class ReluImplementation final : public LayerImpl {
  void forward(LayerContext &ctx, Layer &l) const override {
    if (l.computedByProducer)
      return;
    KernelTimer k(ctx.timers());
    kernelsOf<ReluKernels>(ctx.device())
        .forward(l.tile.volume(), l.inputs[0]->in, l.value.data());
  }

  bool writesWholeInputGradients() const override { return true; }
  bool takesBlockedLayouts(const Layer &, int64_t) const override {
    return true;
  }
  bool keepsLayout() const override { return true; }
  bool isRelu() const override { return true; }

  void backward(LayerContext &ctx, Layer &l) const override {
    Edge &in = *l.inputs[0];
    if (!in.dIn)
      return;
    KernelTimer k(ctx.timers());
    // The mask from the output: the input is not written where the
    // producer computed this ReLU.
    kernelsOf<ReluKernels>(ctx.device())
        .backward(l.tile.volume(), l.value.data(), l.grad.data(), in.dIn);
  }
};

} // namespace

const LayerImpl &ReluImpl() {
  static const ReluImplementation impl;
  return impl;
}

} // namespace hdrt::exec
