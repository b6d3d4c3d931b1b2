//===- LayerNormCpu.cpp - layer norm over channels on the host ------------===//
//
// For each pixel the loops read every channel of the tile, at a stride of
// one image plane; sums are in double, channel by channel in order.
//
//===----------------------------------------------------------------------===//

#include "LayerNormKernels.h"

#include <algorithm>

namespace hdrt {

namespace {

class CpuLayerNorm final : public LayerNormKernels {
public:
  void partialSums(int64_t n, int64_t c, int64_t hw, const float *in,
                   double *sums) override {
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

  void forward(int64_t n, int64_t c, int64_t hw, int64_t channels, double eps,
               const double *sums, const float *in, const float *scale,
               const float *shift, float *mean, float *invStd,
               float *out) override {
    int64_t pixels = n * hw;
    for (int64_t p = 0; p < pixels; ++p)
      meanAndInvStd(sums[p], sums[pixels + p], channels, eps, mean[p],
                    invStd[p]);
    for (int64_t s = 0; s < n; ++s)
      for (int64_t ch = 0; ch < c; ++ch) {
        const float *x = in + (s * c + ch) * hw;
        float *y = out + (s * c + ch) * hw;
        const float *m = mean + s * hw, *r = invStd + s * hw;
        for (int64_t i = 0; i < hw; ++i)
          y[i] = layerNormXhat(x[i], m[i], r[i]) * scale[ch] + shift[ch];
      }
  }

  void backwardPartialSums(int64_t n, int64_t c, int64_t hw, const float *in,
                           const float *dOut, const float *mean,
                           const float *invStd, const float *scale,
                           double *sums) override {
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
          b[i] += g * layerNormXhat(x[i], m[i], r[i]);
        }
      }
    }
  }

  void backward(int64_t n, int64_t c, int64_t hw, int64_t channels,
                const float *in, const float *dOut, const float *mean,
                const float *invStd, const float *scale, const double *sums,
                float *dIn, float *dScale, float *dShift) override {
    int64_t pixels = n * hw;
    for (int64_t ch = 0; ch < c; ++ch) {
      double ds = 0, db = 0;
      for (int64_t s = 0; s < n; ++s) {
        const float *x = in + (s * c + ch) * hw;
        const float *dy = dOut + (s * c + ch) * hw;
        const float *m = mean + s * hw, *r = invStd + s * hw;
        for (int64_t i = 0; i < hw; ++i) {
          ds += double(dy[i]) * layerNormXhat(x[i], m[i], r[i]);
          db += dy[i];
        }
      }
      dScale[ch] = float(ds);
      dShift[ch] = float(db);
    }
    if (!dIn)
      return;
    for (int64_t s = 0; s < n; ++s)
      for (int64_t ch = 0; ch < c; ++ch) {
        const float *x = in + (s * c + ch) * hw;
        const float *dy = dOut + (s * c + ch) * hw;
        float *dx = dIn + (s * c + ch) * hw;
        for (int64_t i = 0; i < hw; ++i) {
          int64_t p = s * hw + i;
          dx[i] = layerNormInputGrad(x[i], dy[i], scale[ch], mean[p], invStd[p],
                                     sums[p], sums[pixels + p], channels);
        }
      }
  }
};

} // namespace

HDRT_REGISTER_KERNELS(LayerNormKernels, "cpu", CpuLayerNorm);

} // namespace hdrt
