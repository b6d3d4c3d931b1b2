//===- ActivationKernels.h - hd.activation and its gradient -----*- C++ -*-===//
//
// One definition of each elementwise activation and its derivative, for the
// CPU loop and the CUDA kernel alike, so that the two devices cannot
// disagree. The formulas are PyTorch's (aten's CPU kernels), including
// where a gradient stops at a boundary, so that training matches it.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_KERNELS_ACTIVATION_ACTIVATIONKERNELS_H
#define HDRT_KERNELS_ACTIVATION_ACTIVATIONKERNELS_H

#include "hdrt/Kernels.h"
#include "hdrt/Random.h" // HDRT_HOST_DEVICE

#include <cmath>
#include <cstdint>

namespace hdrt {

/// The functions of hd.activation; the numbers cross the ABI (the
/// compiler checks them against hd's ActivationFunction at build time).
enum class ActivationFunction : int64_t {
  Clip = 0,
  Sigmoid = 1,
  HardSigmoid = 2,
  HardSwish = 3,
  Silu = 4,
  Gelu = 5,
};
constexpr int64_t kActivationFunctions = 6;

inline bool isActivationFunction(int64_t f) {
  return f >= 0 && f < kActivationFunctions;
}

/// A function with its parameters (clip: min and max; hardsigmoid: slope
/// and offset; unused by the others).
struct Activation {
  ActivationFunction function = ActivationFunction::Sigmoid;
  float alpha = 0, beta = 0;

  HDRT_HOST_DEVICE float forward(float x) const {
    switch (function) {
    case ActivationFunction::Clip:
      return clamp(x, alpha, beta);
    case ActivationFunction::Sigmoid:
      return 1.f / (1.f + expf(-x));
    case ActivationFunction::HardSigmoid:
      return hardSigmoid(x);
    case ActivationFunction::HardSwish:
      return x * clamp(x + 3.f, 0.f, 6.f) / 6.f;
    case ActivationFunction::Silu:
      return x / (1.f + expf(-x));
    case ActivationFunction::Gelu:
      return x * 0.5f * (1.f + erff(x * kSqrtHalf));
    }
    return x;
  }

  /// The input's gradient from the input `x` and the output's gradient.
  HDRT_HOST_DEVICE float backward(float x, float dy) const {
    switch (function) {
    case ActivationFunction::Clip:
      return (x <= alpha || x >= beta) ? 0.f : dy;
    case ActivationFunction::Sigmoid: {
      float y = 1.f / (1.f + expf(-x));
      return dy * (1.f - y) * y;
    }
    case ActivationFunction::HardSigmoid: {
      float z = alpha * x + beta;
      return (z > 0.f && z < 1.f) ? dy * alpha : 0.f;
    }
    case ActivationFunction::HardSwish:
      return x < -3.f ? 0.f : (x <= 3.f ? dy * (x / 3.f + 0.5f) : dy);
    case ActivationFunction::Silu: {
      float s = 1.f / (1.f + expf(-x));
      return dy * s * (1.f + x * (1.f - s));
    }
    case ActivationFunction::Gelu: {
      float cdf = 0.5f * (1.f + erff(x * kSqrtHalf));
      float pdf = expf(-0.5f * x * x) * kInvSqrt2Pi;
      return dy * (cdf + x * pdf);
    }
    }
    return dy;
  }

private:
  static constexpr float kSqrtHalf = 0.70710678118654752440f;
  static constexpr float kInvSqrt2Pi = 0.39894228040143267794f;

  /// NaN stays NaN (fminf and fmaxf would drop it), as in PyTorch, so that
  /// a diverged step still reaches the loss check.
  HDRT_HOST_DEVICE static float clamp(float x, float lo, float hi) {
    return x < lo ? lo : (x > hi ? hi : x);
  }

  HDRT_HOST_DEVICE float hardSigmoid(float x) const {
    return clamp(alpha * x + beta, 0.f, 1.f);
  }
};

class ActivationKernels : public KernelSet {
public:
  static constexpr const char *kName = "Activation";

  /// out = f(in) elementwise.
  virtual void forward(const Activation &f, int64_t count, const float *in,
                       float *out) = 0;
  /// dIn = f'(in) * dOut, from the input.
  virtual void backward(const Activation &f, int64_t count, const float *in,
                        const float *dOut, float *dIn) = 0;
};

} // namespace hdrt

#endif // HDRT_KERNELS_ACTIVATION_ACTIVATIONKERNELS_H
