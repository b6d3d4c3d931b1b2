//===- ChannelOps.cpp - loops across the channels of each pixel -----------===//
//
// Layer norm over channels and the channel shuffle: for each pixel they
// read every channel of the tile, at a stride of one image plane.
//
//===----------------------------------------------------------------------===//

#include "hdrt/cpu/TileOps.h"

#include <cmath>
#include <cstring>

namespace hdrt::cpu {

void layerNormPartialSums(int64_t n, int64_t c, int64_t hw, const float *in,
                          double *sums) {
  int64_t pixels = n * hw;
  double *sum = sums, *sumSq = sums + pixels;
  for (int64_t s = 0; s < n; ++s) {
    double *a = sum + s * hw, *b = sumSq + s * hw;
    std::fill(a, a + hw, 0.0);
    std::fill(b, b + hw, 0.0);
    for (int64_t ch = 0; ch < c; ++ch) {
      const float *x = in + (s * c + ch) * hw;
      for (int64_t i = 0; i < hw; ++i) {
        a[i] += x[i];
        b[i] += double(x[i]) * x[i];
      }
    }
  }
}

void layerNormForward(int64_t n, int64_t c, int64_t hw, int64_t channels,
                      double eps, const double *sums, const float *in,
                      const float *scale, const float *shift, float *mean,
                      float *invStd, float *out) {
  int64_t pixels = n * hw;
  for (int64_t p = 0; p < pixels; ++p) {
    double m = sums[p] / channels;
    double var = std::max(sums[pixels + p] / channels - m * m, 0.0);
    mean[p] = float(m);
    invStd[p] = float(1.0 / std::sqrt(var + eps));
  }
  for (int64_t s = 0; s < n; ++s)
    for (int64_t ch = 0; ch < c; ++ch) {
      const float *x = in + (s * c + ch) * hw;
      float *y = out + (s * c + ch) * hw;
      const float *m = mean + s * hw, *r = invStd + s * hw;
      for (int64_t i = 0; i < hw; ++i)
        y[i] = (x[i] - m[i]) * r[i] * scale[ch] + shift[ch];
    }
}

void layerNormBackwardPartialSums(int64_t n, int64_t c, int64_t hw,
                                  const float *in, const float *dOut,
                                  const float *mean, const float *invStd,
                                  const float *scale, double *sums) {
  int64_t pixels = n * hw;
  for (int64_t s = 0; s < n; ++s) {
    double *a = sums + s * hw, *b = sums + pixels + s * hw;
    std::fill(a, a + hw, 0.0);
    std::fill(b, b + hw, 0.0);
    const float *m = mean + s * hw, *r = invStd + s * hw;
    for (int64_t ch = 0; ch < c; ++ch) {
      const float *x = in + (s * c + ch) * hw;
      const float *dy = dOut + (s * c + ch) * hw;
      for (int64_t i = 0; i < hw; ++i) {
        double g = double(dy[i]) * scale[ch];
        a[i] += g;
        b[i] += g * ((x[i] - m[i]) * r[i]);
      }
    }
  }
}

void layerNormBackward(int64_t n, int64_t c, int64_t hw, int64_t channels,
                       const float *in, const float *dOut, const float *mean,
                       const float *invStd, const float *scale,
                       const double *sums, float *dIn, float *dScale,
                       float *dShift) {
  int64_t pixels = n * hw;
  for (int64_t ch = 0; ch < c; ++ch) {
    double ds = 0, db = 0;
    for (int64_t s = 0; s < n; ++s) {
      const float *x = in + (s * c + ch) * hw;
      const float *dy = dOut + (s * c + ch) * hw;
      const float *m = mean + s * hw, *r = invStd + s * hw;
      for (int64_t i = 0; i < hw; ++i) {
        ds += double(dy[i]) * ((x[i] - m[i]) * r[i]);
        db += dy[i];
      }
    }
    dScale[ch] = float(ds);
    dShift[ch] = float(db);
  }
  if (!dIn)
    return;
  // dx = invStd * (g - mean(g) - xhat * mean(g * xhat)), the means over
  // all of the pixel's channels.
  for (int64_t s = 0; s < n; ++s)
    for (int64_t ch = 0; ch < c; ++ch) {
      const float *x = in + (s * c + ch) * hw;
      const float *dy = dOut + (s * c + ch) * hw;
      float *dx = dIn + (s * c + ch) * hw;
      for (int64_t i = 0; i < hw; ++i) {
        int64_t p = s * hw + i;
        double xhat = (x[i] - mean[p]) * invStd[p];
        double g = double(dy[i]) * scale[ch];
        dx[i] = float(invStd[p] * (g - sums[p] / channels -
                                   xhat * sums[pixels + p] / channels));
      }
    }
}

void channelShuffle(int64_t n, int64_t c, int64_t hw, int64_t groups,
                    const float *in, float *out) {
  int64_t perGroup = c / groups;
  for (int64_t s = 0; s < n; ++s)
    for (int64_t k = 0; k < perGroup; ++k)
      for (int64_t g = 0; g < groups; ++g)
        std::memcpy(out + (s * c + k * groups + g) * hw,
                    in + (s * c + g * perGroup + k) * hw, hw * sizeof(float));
}

} // namespace hdrt::cpu
