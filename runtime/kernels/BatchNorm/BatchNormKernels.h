//===- BatchNormKernels.h - batch norm over the global batch ----*- C++ -*-===//
//
// The statistics span tiles: a tile's partial sums, which the executor
// all-reduces across the tasks that share its channels, then the tile's
// part computed from the global sums. Run on one tile holding everything,
// the steps give the unsplit layer; that is what makes parallel equal
// serial. Tiles are NCHW (`block` 1) or nChw<block>c (8 or 16, dividing
// c), the CPU's blocked layouts. The per-channel formulas are written once
// here for every device.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_KERNELS_BATCHNORM_BATCHNORMKERNELS_H
#define HDRT_KERNELS_BATCHNORM_BATCHNORMKERNELS_H

#include "hdrt/Kernels.h"
#include "hdrt/Random.h" // HDRT_HOST_DEVICE
#include "hdrt/common/Moments.h"

#include <cmath>
#include <cstdint>

namespace hdrt {

/// Running statistics, as PyTorch keeps them (ONNX's `momentum`, the weight
/// of the old value, is 1 - PyTorch's): running = momentum * running +
/// (1 - momentum) * batch, with the batch's unbiased variance.
HDRT_HOST_DEVICE inline void batchNormRunning(double sum, double sumSq,
                                              int64_t count, double momentum,
                                              float &runningMean,
                                              float &runningVar) {
  double m = sum / count;
  double var = biasedVariance(sum, sumSq, count);
  double unbiased = count > 1 ? var * count / (count - 1) : var;
  runningMean = static_cast<float>(momentum * runningMean + (1 - momentum) * m);
  runningVar =
      static_cast<float>(momentum * runningVar + (1 - momentum) * unbiased);
}

/// 1 / sqrt(var + eps) of a running variance: inference normalizes with
/// the running statistics.
HDRT_HOST_DEVICE inline float batchNormInvStd(float var, double eps) {
  return static_cast<float>(1.0 / sqrt(double(var) + eps));
}

/// a * (x - mean) + shift with a = scale * invStd, not a * x + (shift -
/// a * mean): a mean large against the spread would cancel most of the
/// second form's digits.
HDRT_HOST_DEVICE inline float batchNormNormalize(float a, float x, float mean,
                                                 float shift) {
  return a * (x - mean) + shift;
}

/// dx = scale * invStd * (dy - mean(dy) - xhat * mean(dy * xhat)), with
/// xhat = (x - mean) * invStd, is dx = k * dy + kx * (x - mean) + k0 per
/// channel: the three factors formed in double, the per-element work float
/// multiply-adds. x - mean keeps the precision a large mean would cost in
/// the expanded kx * x + (k0 - kx * mean).
struct BatchNormGradFactors {
  float k, kx, k0;

  HDRT_HOST_DEVICE BatchNormGradFactors(float scale, float invStd,
                                        double sumDOut, double sumDOutXhat,
                                        int64_t count) {
    double a = double(scale) * invStd;
    k = static_cast<float>(a);
    kx = static_cast<float>(-a * invStd * sumDOutXhat / count);
    k0 = static_cast<float>(-a * sumDOut / count);
  }
  HDRT_HOST_DEVICE float operator()(float dy, float x, float mean) const {
    return k * dy + (kx * (x - mean) + k0);
  }
};

class BatchNormKernels : public KernelSet {
public:
  static constexpr const char *kName = "BatchNorm";

  /// `sums` (2c doubles, overwritten): the tile's per-channel sums, then
  /// sums of squares.
  virtual void partialSums(int64_t n, int64_t c, int64_t hw, int64_t block,
                           const float *in, double *sums) = 0;
  /// meanAndInvStd (hdrt/common/Moments.h) of each channel from the
  /// global sums over `count` values.
  virtual void statistics(int64_t c, int64_t count, double eps,
                          const double *sums, float *mean, float *invStd) = 0;
  /// batchNormRunning of each channel, after `statistics` of a training
  /// step (the same sums).
  virtual void runningUpdate(int64_t c, int64_t count, double momentum,
                             const double *sums, float *runningMean,
                             float *runningVar) = 0;
  /// batchNormInvStd of each channel's running variance.
  virtual void runningInvStd(int64_t c, double eps, const float *var,
                             float *invStd) = 0;
  /// batchNormNormalize of each element; with `relu`, relu of it
  /// (ReluKernels.h): a batch norm and the ReLU that is its only reader in
  /// one pass.
  virtual void forward(int64_t n, int64_t c, int64_t hw, int64_t block,
                       const float *in, const float *mean, const float *invStd,
                       const float *scale, const float *shift, float *out,
                       bool relu) = 0;
  /// `sums` (2c, overwritten): the tile's per-channel sums of dOut and of
  /// dOut * xhat; the global values are also the gradients of shift and
  /// scale.
  virtual void backwardPartialSums(int64_t n, int64_t c, int64_t hw,
                                   int64_t block, const float *in,
                                   const float *dOut, const float *mean,
                                   const float *invStd, double *sums) = 0;
  /// dScale = sums[c..2c), dShift = sums[0..c): this tile's share.
  virtual void paramGrads(int64_t c, const double *sums, float *dScale,
                          float *dShift) = 0;
  /// dIn from the global backward sums (BatchNormGradFactors).
  virtual void backwardData(int64_t n, int64_t c, int64_t hw, int64_t block,
                            int64_t count, const float *in, const float *dOut,
                            const float *mean, const float *invStd,
                            const float *scale, const double *sums,
                            float *dIn) = 0;
};

} // namespace hdrt

#endif // HDRT_KERNELS_BATCHNORM_BATCHNORMKERNELS_H
