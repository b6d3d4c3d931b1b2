//===- Add.cpp - the sum of two activations on this rank's tile -----------===//

#include "../LayerImpl.h"

#include "kernels/Add/AddKernels.h"

namespace hdrt::exec {

namespace {

class AddImplementation final : public LayerImpl {
  void forward(LayerContext &ctx, Layer &l) const override {
    KernelTimer k(ctx.timers());
    float *out = l.reluInto ? l.reluInto->value.data() : l.value.data();
    kernelsOf<AddKernels>(ctx.device())
        .forward(l.tile.volume(), l.inputs[0]->in, l.inputs[1]->in, out,
                 l.reluInto != nullptr);
  }

  bool writesWholeInputGradients() const override { return true; }
  bool takesBlockedLayouts(const Layer &, int64_t) const override {
    return true;
  }
  bool keepsLayout() const override { return true; }
  bool appliesRelu() const override { return true; }

  void backward(LayerContext &ctx, Layer &l) const override {
    // Both operands get the output's gradient.
    int64_t volume = l.tile.volume();
    for (Edge *e : l.inputs)
      if (e->dIn)
        ctx.device().copyRows(e->dIn, volume, l.grad.data(), volume, 1, volume);
  }
};

} // namespace

const LayerImpl &AddImpl() {
  static const AddImplementation impl;
  return impl;
}

} // namespace hdrt::exec
