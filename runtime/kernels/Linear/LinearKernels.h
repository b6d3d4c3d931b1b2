//===- LinearKernels.h - a fully-connected layer on one tile ----*- C++ -*-===//
//
// Row-major n x features inputs against an outFeatures x features weight
// shard: a task's samples and output features.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_KERNELS_LINEAR_LINEARKERNELS_H
#define HDRT_KERNELS_LINEAR_LINEARKERNELS_H

#include "hdrt/Kernels.h"

#include <cstdint>

namespace hdrt {

class LinearKernels : public KernelSet {
public:
  static constexpr const char *kName = "Linear";

  /// out[n, k] = bias[k] + sum_f in[n, f] * weight[k, f]; `bias` may be
  /// null.
  virtual void forward(int64_t n, int64_t features, int64_t outFeatures,
                       const float *in, const float *weight, const float *bias,
                       float *out) = 0;
  /// dIn (overwritten) = dOut * weight.
  virtual void backwardData(int64_t n, int64_t features, int64_t outFeatures,
                            const float *dOut, const float *weight,
                            float *dIn) = 0;
  /// dWeight and dBias (when not null) = this tile's parameter gradients
  /// (overwritten).
  virtual void backwardWeights(int64_t n, int64_t features, int64_t outFeatures,
                               const float *in, const float *dOut,
                               float *dWeight, float *dBias) = 0;
};

} // namespace hdrt

#endif // HDRT_KERNELS_LINEAR_LINEARKERNELS_H
