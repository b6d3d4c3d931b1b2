//===- ActivationCpu.cpp - hd.activation on the host ----------------------===//

#include "ActivationKernels.h"

#include "hdrt/common/Parallel.h"

namespace hdrt {

namespace {

/// The loop for one function, so that the compiler folds Activation's
/// switch out of it.
template <ActivationFunction F, typename Body>
void withFixedFunction(const Activation &f, Body body) {
  Activation fixed = f;
  fixed.function = F;
  body(fixed);
}

template <typename Body> void dispatch(const Activation &f, Body body) {
  switch (f.function) {
  case ActivationFunction::Clip:
    return withFixedFunction<ActivationFunction::Clip>(f, body);
  case ActivationFunction::Sigmoid:
    return withFixedFunction<ActivationFunction::Sigmoid>(f, body);
  case ActivationFunction::HardSigmoid:
    return withFixedFunction<ActivationFunction::HardSigmoid>(f, body);
  case ActivationFunction::HardSwish:
    return withFixedFunction<ActivationFunction::HardSwish>(f, body);
  case ActivationFunction::Silu:
    return withFixedFunction<ActivationFunction::Silu>(f, body);
  case ActivationFunction::Gelu:
    return withFixedFunction<ActivationFunction::Gelu>(f, body);
  }
}

class CpuActivation final : public ActivationKernels {
public:
  void forward(const Activation &f, int64_t count, const float *in,
               float *out) override {
    dispatch(f, [&](const Activation &g) {
      parallelChunks(count, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i)
          out[i] = g.forward(in[i]);
      });
    });
  }

  void backward(const Activation &f, int64_t count, const float *in,
                const float *dOut, float *dIn) override {
    dispatch(f, [&](const Activation &g) {
      parallelChunks(count, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i)
          dIn[i] = g.backward(in[i], dOut[i]);
      });
    });
  }
};

} // namespace

HDRT_REGISTER_KERNELS(ActivationKernels, "cpu", CpuActivation);

} // namespace hdrt
