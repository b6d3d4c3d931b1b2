//===- ReluKernels.h - the rectified linear unit ----------------*- C++ -*-===//
//
// max(x, 0), except that NaN stays NaN: a diverging value must reach the
// loss check, as in PyTorch (oneDNN's JIT kernel and fmaxf would turn it
// into 0). The formula is written once for every device and for the
// producers that compute a ReLU in their own pass (batch norm, add).
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_KERNELS_RELU_RELUKERNELS_H
#define HDRT_KERNELS_RELU_RELUKERNELS_H

#include "hdrt/Kernels.h"
#include "hdrt/Random.h" // HDRT_HOST_DEVICE

#include <cstdint>

namespace hdrt {

HDRT_HOST_DEVICE inline float relu(float x) { return x < 0.f ? 0.f : x; }

class ReluKernels : public KernelSet {
public:
  static constexpr const char *kName = "Relu";

  /// out = relu(in).
  virtual void forward(int64_t count, const float *in, float *out) = 0;
  /// dIn = dOut where x > 0, else 0; a NaN x passes its gradient, as
  /// PyTorch's threshold_backward does. `x` is the ReLU's input or its
  /// output: both give the same mask (relu keeps a NaN, and x > 0 exactly
  /// where relu(x) > 0).
  virtual void backward(int64_t count, const float *x, const float *dOut,
                        float *dIn) = 0;
};

} // namespace hdrt

#endif // HDRT_KERNELS_RELU_RELUKERNELS_H
