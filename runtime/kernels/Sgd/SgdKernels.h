//===- SgdKernels.h - the optimizer's update --------------------*- C++ -*-===//
//
// SGD with momentum and weight decay, as PyTorch: d = g + weightDecay * p;
// v = momentum * v + d; p -= lr * v, or with Nesterov momentum
// p -= lr * (d + momentum * v). In PyTorch's order of operations, so that
// both round alike; one formula for every device.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_KERNELS_SGD_SGDKERNELS_H
#define HDRT_KERNELS_SGD_SGDKERNELS_H

#include "hdrt/Kernels.h"
#include "hdrt/Random.h" // HDRT_HOST_DEVICE

#include <cstdint>

namespace hdrt {

HDRT_HOST_DEVICE inline void sgdStep(float lr, float momentum,
                                     float weightDecay, bool nesterov,
                                     float &param, float grad,
                                     float &velocity) {
  float d = grad + weightDecay * param;
  float v = momentum * velocity + d;
  velocity = v;
  param -= lr * (nesterov ? d + momentum * v : v);
}

class SgdKernels : public KernelSet {
public:
  static constexpr const char *kName = "Sgd";

  /// sgdStep on each of `count` parameters.
  virtual void update(int64_t count, float lr, float momentum,
                      float weightDecay, bool nesterov, float *param,
                      const float *grad, float *velocity) = 0;
};

} // namespace hdrt

#endif // HDRT_KERNELS_SGD_SGDKERNELS_H
