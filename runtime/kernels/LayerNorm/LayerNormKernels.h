//===- LayerNormKernels.h - layer norm over channels ------------*- C++ -*-===//
//
// On an n x c x hw tile whose channels are part of `channels`: each tile
// sums its channels of each pixel, the executor all-reduces the sums over
// the tasks that split the channels, and each tile normalizes with the
// pixel's values over all channels. The per-element formulas are written
// once here for every device.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_KERNELS_LAYERNORM_LAYERNORMKERNELS_H
#define HDRT_KERNELS_LAYERNORM_LAYERNORMKERNELS_H

#include "hdrt/Kernels.h"
#include "hdrt/Random.h" // HDRT_HOST_DEVICE
#include "hdrt/common/Moments.h"

#include <cmath>
#include <cstdint>

namespace hdrt {

/// The normalized value x^ = (x - mean) * invStd, in float.
HDRT_HOST_DEVICE inline float layerNormXhat(float x, float mean, float invStd) {
  return (x - mean) * invStd;
}

/// dx = invStd * (g - mean(g) - xhat * mean(g * xhat)) with g = dy *
/// scale, the means over all of the pixel's `channels` (`sumG`,
/// `sumGXhat`: their sums).
HDRT_HOST_DEVICE inline float layerNormInputGrad(float x, float dy, float scale,
                                                 float mean, float invStd,
                                                 double sumG, double sumGXhat,
                                                 int64_t channels) {
  double xhat = layerNormXhat(x, mean, invStd);
  double g = double(dy) * scale;
  return float(invStd * (g - sumG / channels - xhat * sumGXhat / channels));
}

class LayerNormKernels : public KernelSet {
public:
  static constexpr const char *kName = "LayerNorm";

  /// `sums` (2 * n * hw doubles, overwritten): per pixel, the sums over the
  /// tile's channels of x, then of x^2.
  virtual void partialSums(int64_t n, int64_t c, int64_t hw, const float *in,
                           double *sums) = 0;
  /// From the pixels' sums over all channels: their mean and 1/stddev
  /// (meanAndInvStd, hdrt/common/Moments.h), and the output
  /// xhat * scale + shift.
  virtual void forward(int64_t n, int64_t c, int64_t hw, int64_t channels,
                       double eps, const double *sums, const float *in,
                       const float *scale, const float *shift, float *mean,
                       float *invStd, float *out) = 0;
  /// `sums` (2 * n * hw, overwritten): per pixel, the sums over the tile's
  /// channels of g = dOut * scale, then of g * xhat.
  virtual void backwardPartialSums(int64_t n, int64_t c, int64_t hw,
                                   const float *in, const float *dOut,
                                   const float *mean, const float *invStd,
                                   const float *scale, double *sums) = 0;
  /// dScale and dShift (this tile's share), and dIn unless null, from the
  /// pixels' backward sums over all channels.
  virtual void backward(int64_t n, int64_t c, int64_t hw, int64_t channels,
                        const float *in, const float *dOut, const float *mean,
                        const float *invStd, const float *scale,
                        const double *sums, float *dIn, float *dScale,
                        float *dShift) = 0;
};

} // namespace hdrt

#endif // HDRT_KERNELS_LAYERNORM_LAYERNORMKERNELS_H
