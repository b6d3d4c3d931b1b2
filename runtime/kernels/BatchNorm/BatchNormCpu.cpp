//===- BatchNormCpu.cpp - batch norm on the host --------------------------===//
//
// Loops on NCHW tiles and on nChw<B>c tiles, where channel ch of sample s is
// at ((s * c/B + ch/B) * hw + i) * B + ch%B: a block's B channels sit in one
// vector, so those loops run along the lanes. Each channel's terms add in a
// fixed order (sample, then position) whatever the thread count, so that a
// result does not depend on it. Sums are in double.
//
//===----------------------------------------------------------------------===//

#include "BatchNormKernels.h"

#include "hdrt/common/Parallel.h"
#include "kernels/Relu/ReluKernels.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace hdrt {

namespace {

void partialSumsPlain(int64_t n, int64_t c, int64_t hw, const float *in,
                      double *sum, double *sumSq) {
  // One channel per iteration, its samples in order. Within a row the sums
  // run in vector lanes (a fixed order for a given build): a scalar chain
  // of double adds made this loop latency-bound at a quarter of memory
  // speed.
  parallelFor(c, n * c * hw, [&](int64_t ch) {
    for (int64_t s = 0; s < n; ++s) {
      const float *x = in + (s * c + ch) * hw;
      double a = 0, b = 0;
#pragma omp simd reduction(+ : a, b)
      for (int64_t i = 0; i < hw; ++i) {
        double v = x[i];
        a += v;
        b += v * v;
      }
      sum[ch] += a;
      sumSq[ch] += b;
    }
  });
}

/// batchNormNormalize, then the ReLU when `Relu`.
template <bool Relu>
inline float normalize(float a, float x, float m, float b) {
  float y = batchNormNormalize(a, x, m, b);
  return Relu ? relu(y) : y;
}

template <bool Relu>
void forwardPlain(int64_t n, int64_t c, int64_t hw, const float *in,
                  const float *mean, const float *invStd, const float *scale,
                  const float *shift, float *out) {
  parallelFor(n * c, n * c * hw, [&](int64_t row) {
    int64_t ch = row % c;
    const float *x = in + row * hw;
    float *y = out + row * hw;
    float a = scale[ch] * invStd[ch], m = mean[ch], b = shift[ch];
    for (int64_t i = 0; i < hw; ++i)
      y[i] = normalize<Relu>(a, x[i], m, b);
  });
}

void backwardPartialSumsPlain(int64_t n, int64_t c, int64_t hw, const float *in,
                              const float *dOut, const float *mean,
                              const float *invStd, double *sumDOut,
                              double *sumDOutXhat) {
  // As partialSumsPlain: rows in order, lanes within a row. invStd is a
  // per-channel factor, so it multiplies the row's sum once.
  parallelFor(c, n * c * hw, [&](int64_t ch) {
    double m = mean[ch];
    for (int64_t s = 0; s < n; ++s) {
      const float *x = in + (s * c + ch) * hw;
      const float *dy = dOut + (s * c + ch) * hw;
      double a = 0, b = 0;
#pragma omp simd reduction(+ : a, b)
      for (int64_t i = 0; i < hw; ++i) {
        double g = dy[i];
        a += g;
        b += g * (x[i] - m);
      }
      sumDOut[ch] += a;
      sumDOutXhat[ch] += b * invStd[ch];
    }
  });
}

void backwardDataPlain(int64_t n, int64_t c, int64_t hw, int64_t count,
                       const float *in, const float *dOut, const float *mean,
                       const float *invStd, const float *scale,
                       const double *sumDOut, const double *sumDOutXhat,
                       float *dIn) {
  parallelFor(n * c, n * c * hw, [&](int64_t row) {
    int64_t ch = row % c;
    const float *x = in + row * hw;
    const float *dy = dOut + row * hw;
    float *dx = dIn + row * hw;
    BatchNormGradFactors grad(scale[ch], invStd[ch], sumDOut[ch],
                              sumDOutXhat[ch], count);
    float m = mean[ch];
    for (int64_t i = 0; i < hw; ++i)
      dx[i] = grad(dy[i], x[i], m);
  });
}

/// Row `row` (sample s, block blk: s * c/B + blk) of an nChw<B>c tile.
template <int B>
const float *blockRow(const float *t, int64_t row, int64_t hw) {
  return t + row * hw * B;
}

template <int B>
void partialSumsBlocked(int64_t n, int64_t c, int64_t hw, const float *in,
                        double *sum, double *sumSq) {
  int64_t blocks = c / B;
  parallelFor(blocks, n * c * hw, [&](int64_t blk) {
    double a[B] = {}, b[B] = {};
    for (int64_t s = 0; s < n; ++s) {
      const float *x = blockRow<B>(in, s * blocks + blk, hw);
      for (int64_t i = 0; i < hw; ++i)
#pragma omp simd
        for (int l = 0; l < B; ++l) {
          double v = x[i * B + l];
          a[l] += v;
          b[l] += v * v;
        }
    }
    for (int l = 0; l < B; ++l) {
      sum[blk * B + l] += a[l];
      sumSq[blk * B + l] += b[l];
    }
  });
}

template <int B, bool Relu>
void forwardBlocked(int64_t n, int64_t c, int64_t hw, const float *in,
                    const float *mean, const float *invStd, const float *scale,
                    const float *shift, float *out) {
  int64_t blocks = c / B;
  parallelFor(n * blocks, n * c * hw, [&](int64_t row) {
    int64_t ch0 = row % blocks * B;
    const float *x = blockRow<B>(in, row, hw);
    float *y = out + (x - in);
    float a[B], m[B], b[B];
    for (int l = 0; l < B; ++l) {
      a[l] = scale[ch0 + l] * invStd[ch0 + l];
      m[l] = mean[ch0 + l];
      b[l] = shift[ch0 + l];
    }
    for (int64_t i = 0; i < hw; ++i)
#pragma omp simd
      for (int l = 0; l < B; ++l)
        y[i * B + l] = normalize<Relu>(a[l], x[i * B + l], m[l], b[l]);
  });
}

template <int B>
void backwardPartialSumsBlocked(int64_t n, int64_t c, int64_t hw,
                                const float *in, const float *dOut,
                                const float *mean, const float *invStd,
                                double *sumDOut, double *sumDOutXhat) {
  int64_t blocks = c / B;
  parallelFor(blocks, n * c * hw, [&](int64_t blk) {
    double a[B] = {}, b[B] = {}, m[B];
    for (int l = 0; l < B; ++l)
      m[l] = mean[blk * B + l];
    for (int64_t s = 0; s < n; ++s) {
      const float *x = blockRow<B>(in, s * blocks + blk, hw);
      const float *dy = dOut + (x - in);
      for (int64_t i = 0; i < hw; ++i)
#pragma omp simd
        for (int l = 0; l < B; ++l) {
          double g = dy[i * B + l];
          a[l] += g;
          b[l] += g * (x[i * B + l] - m[l]);
        }
    }
    for (int l = 0; l < B; ++l) {
      sumDOut[blk * B + l] += a[l];
      sumDOutXhat[blk * B + l] += b[l] * invStd[blk * B + l];
    }
  });
}

template <int B>
void backwardDataBlocked(int64_t n, int64_t c, int64_t hw, int64_t count,
                         const float *in, const float *dOut, const float *mean,
                         const float *invStd, const float *scale,
                         const double *sumDOut, const double *sumDOutXhat,
                         float *dIn) {
  int64_t blocks = c / B;
  parallelFor(n * blocks, n * c * hw, [&](int64_t row) {
    int64_t ch0 = row % blocks * B;
    const float *x = blockRow<B>(in, row, hw);
    const float *dy = dOut + (x - in);
    float *dx = dIn + (x - in);
    float k[B], kx[B], k0[B], m[B];
    for (int l = 0; l < B; ++l) {
      int64_t ch = ch0 + l;
      BatchNormGradFactors grad(scale[ch], invStd[ch], sumDOut[ch],
                                sumDOutXhat[ch], count);
      k[l] = grad.k;
      kx[l] = grad.kx;
      k0[l] = grad.k0;
      m[l] = mean[ch];
    }
    // The factors' operator() spelled out, so that the lanes vectorize.
    for (int64_t i = 0; i < hw; ++i)
#pragma omp simd
      for (int l = 0; l < B; ++l)
        dx[i * B + l] =
            k[l] * dy[i * B + l] + (kx[l] * (x[i * B + l] - m[l]) + k0[l]);
  });
}

/// Calls loop(B) with B = `block` as a constant: 8 or 16 channels.
template <typename Loop> void byBlock(int64_t block, int64_t c, Loop loop) {
  if (block == 8 && c % 8 == 0)
    return loop(std::integral_constant<int, 8>());
  if (block == 16 && c % 16 == 0)
    return loop(std::integral_constant<int, 16>());
  throw std::invalid_argument("batch norm: no nChw" + std::to_string(block) +
                              "c layout for " + std::to_string(c) +
                              " channels");
}

class CpuBatchNorm final : public BatchNormKernels {
public:
  void partialSums(int64_t n, int64_t c, int64_t hw, int64_t block,
                   const float *in, double *sums) override {
    std::fill(sums, sums + 2 * c, 0.0);
    if (block == 1)
      return partialSumsPlain(n, c, hw, in, sums, sums + c);
    byBlock(block, c, [&](auto b) {
      partialSumsBlocked<b()>(n, c, hw, in, sums, sums + c);
    });
  }

  void statistics(int64_t c, int64_t count, double eps, const double *sums,
                  float *mean, float *invStd) override {
    for (int64_t ch = 0; ch < c; ++ch)
      meanAndInvStd(sums[ch], sums[c + ch], count, eps, mean[ch], invStd[ch]);
  }

  void runningUpdate(int64_t c, int64_t count, double momentum,
                     const double *sums, float *runningMean,
                     float *runningVar) override {
    for (int64_t ch = 0; ch < c; ++ch)
      batchNormRunning(sums[ch], sums[c + ch], count, momentum, runningMean[ch],
                       runningVar[ch]);
  }

  void runningInvStd(int64_t c, double eps, const float *var,
                     float *invStd) override {
    for (int64_t ch = 0; ch < c; ++ch)
      invStd[ch] = batchNormInvStd(var[ch], eps);
  }

  void forward(int64_t n, int64_t c, int64_t hw, int64_t block, const float *in,
               const float *mean, const float *invStd, const float *scale,
               const float *shift, float *out, bool applyRelu) override {
    auto run = [&](auto reluConstant) {
      constexpr bool Relu = decltype(reluConstant)::value;
      if (block == 1)
        return forwardPlain<Relu>(n, c, hw, in, mean, invStd, scale, shift,
                                  out);
      byBlock(block, c, [&](auto b) {
        forwardBlocked<b(), Relu>(n, c, hw, in, mean, invStd, scale, shift,
                                  out);
      });
    };
    applyRelu ? run(std::true_type()) : run(std::false_type());
  }

  void backwardPartialSums(int64_t n, int64_t c, int64_t hw, int64_t block,
                           const float *in, const float *dOut,
                           const float *mean, const float *invStd,
                           double *sums) override {
    std::fill(sums, sums + 2 * c, 0.0);
    if (block == 1)
      return backwardPartialSumsPlain(n, c, hw, in, dOut, mean, invStd, sums,
                                      sums + c);
    byBlock(block, c, [&](auto b) {
      backwardPartialSumsBlocked<b()>(n, c, hw, in, dOut, mean, invStd, sums,
                                      sums + c);
    });
  }

  void paramGrads(int64_t c, const double *sums, float *dScale,
                  float *dShift) override {
    for (int64_t ch = 0; ch < c; ++ch) {
      dScale[ch] = static_cast<float>(sums[c + ch]);
      dShift[ch] = static_cast<float>(sums[ch]);
    }
  }

  void backwardData(int64_t n, int64_t c, int64_t hw, int64_t block,
                    int64_t count, const float *in, const float *dOut,
                    const float *mean, const float *invStd, const float *scale,
                    const double *sums, float *dIn) override {
    if (block == 1)
      return backwardDataPlain(n, c, hw, count, in, dOut, mean, invStd, scale,
                               sums, sums + c, dIn);
    byBlock(block, c, [&](auto b) {
      backwardDataBlocked<b()>(n, c, hw, count, in, dOut, mean, invStd, scale,
                               sums, sums + c, dIn);
    });
  }
};

} // namespace

HDRT_REGISTER_KERNELS(BatchNormKernels, "cpu", CpuBatchNorm);

} // namespace hdrt
