//===- Moments.h - a mean and an inverse deviation --------------*- C++ -*-===//
//
// Normalization layers sum x and x^2 over the values each statistic spans
// (each task its part, then an all-reduce over the tasks that share it),
// and turn the two sums into a mean and 1/sqrt(var + eps). One formula for
// every device and every kind that normalizes.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_COMMON_MOMENTS_H
#define HDRT_COMMON_MOMENTS_H

#include "hdrt/Random.h" // HDRT_HOST_DEVICE

#include <cmath>
#include <cstdint>

namespace hdrt {

/// The biased variance of `count` values from their sum and sum of
/// squares; rounding may leave the difference below 0, which is clamped,
/// while a NaN stays NaN (a diverged run must reach the loss check).
HDRT_HOST_DEVICE inline double biasedVariance(double sum, double sumSq,
                                              int64_t count) {
  double m = sum / count;
  double v = sumSq / count - m * m;
  return v < 0.0 ? 0.0 : v;
}

/// The mean and 1/sqrt(var + eps) of `count` values from the two sums.
HDRT_HOST_DEVICE inline void meanAndInvStd(double sum, double sumSq,
                                           int64_t count, double eps,
                                           float &mean, float &invStd) {
  mean = float(sum / count);
  invStd = float(1.0 / sqrt(biasedVariance(sum, sumSq, count) + eps));
}

} // namespace hdrt

#endif // HDRT_COMMON_MOMENTS_H
