//===- TileOps.cpp - loop kernels whose semantics span tiles --------------===//

#include "hdrt/cpu/TileOps.h"
#include "hdrt/Random.h"
#include "hdrt/common/Parallel.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace hdrt::cpu {

void batchNormStatistics(int64_t c, int64_t count, double eps,
                         const double *sum, const double *sumSq, float *mean,
                         float *invStd) {
  for (int64_t ch = 0; ch < c; ++ch) {
    double m = sum[ch] / count;
    double var = std::max(0.0, sumSq[ch] / count - m * m);
    mean[ch] = static_cast<float>(m);
    invStd[ch] = static_cast<float>(1.0 / std::sqrt(var + eps));
  }
}

void batchNormRunningUpdate(int64_t c, int64_t count, double momentum,
                            const double *sum, const double *sumSq,
                            float *runningMean, float *runningVar) {
  for (int64_t ch = 0; ch < c; ++ch) {
    double m = sum[ch] / count;
    double var = std::max(0.0, sumSq[ch] / count - m * m);
    double unbiased = count > 1 ? var * count / (count - 1) : var;
    runningMean[ch] =
        static_cast<float>(momentum * runningMean[ch] + (1 - momentum) * m);
    runningVar[ch] = static_cast<float>(momentum * runningVar[ch] +
                                        (1 - momentum) * unbiased);
  }
}

void batchNormInvStd(int64_t c, double eps, const float *var, float *invStd) {
  for (int64_t ch = 0; ch < c; ++ch)
    invStd[ch] = static_cast<float>(1.0 / std::sqrt(double(var[ch]) + eps));
}

namespace {

void batchNormPartialSumsPlain(int64_t n, int64_t c, int64_t hw,
                               const float *in, double *sum, double *sumSq) {
  // One channel per iteration, its samples in order, so that the sums do
  // not depend on the thread count. Within a row the sums run in vector
  // lanes (a fixed order for a given build): a scalar chain of double adds
  // made this loop latency-bound at a quarter of memory speed.
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

/// a * (x - mean) + shift, not a * x + (shift - a * mean): a mean large
/// against the spread would cancel most of the second form's digits. With
/// `Relu`, then max(y, 0) as reluForward computes it (NaN stays NaN).
template <bool Relu>
inline float normalize(float a, float x, float m, float b) {
  float y = a * (x - m) + b;
  return Relu && y < 0.f ? 0.f : y;
}

template <bool Relu>
void batchNormForwardPlain(int64_t n, int64_t c, int64_t hw, const float *in,
                           const float *mean, const float *invStd,
                           const float *scale, const float *shift,
                           float *out) {
  parallelFor(n * c, n * c * hw, [&](int64_t row) {
    int64_t ch = row % c;
    const float *x = in + row * hw;
    float *y = out + row * hw;
    float a = scale[ch] * invStd[ch], m = mean[ch], b = shift[ch];
    for (int64_t i = 0; i < hw; ++i)
      y[i] = normalize<Relu>(a, x[i], m, b);
  });
}

void batchNormBackwardPartialSumsPlain(int64_t n, int64_t c, int64_t hw,
                                       const float *in, const float *dOut,
                                       const float *mean, const float *invStd,
                                       double *sumDOut, double *sumDOutXhat) {
  // As batchNormPartialSums: rows in order, lanes within a row. invStd is
  // a per-channel factor, so it multiplies the row's sum once.
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

void batchNormBackwardDataPlain(int64_t n, int64_t c, int64_t hw,
                                int64_t count, const float *in,
                                const float *dOut, const float *mean,
                                const float *invStd, const float *scale,
                                const double *sumDOut,
                                const double *sumDOutXhat, float *dIn) {
  // dx = scale * invStd * (dy - mean(dy) - xhat * mean(dy * xhat)), with
  // xhat = (x - mean) * invStd, is dx = k * dy + kx * (x - mean) + k0 per
  // channel. The three factors are formed in double; the loop is float
  // multiply-adds the compiler vectorizes. x - mean keeps the precision a
  // large mean would cost in the expanded kx * x + (k0 - kx * mean).
  parallelFor(n * c, n * c * hw, [&](int64_t row) {
    int64_t ch = row % c;
    const float *x = in + row * hw;
    const float *dy = dOut + row * hw;
    float *dx = dIn + row * hw;
    double a = double(scale[ch]) * invStd[ch];
    float k = static_cast<float>(a);
    float kx = static_cast<float>(-a * invStd[ch] * sumDOutXhat[ch] / count);
    float k0 = static_cast<float>(-a * sumDOut[ch] / count);
    float m = mean[ch];
    for (int64_t i = 0; i < hw; ++i)
      dx[i] = k * dy[i] + (kx * (x[i] - m) + k0);
  });
}

// The same loops on an nChw<B>c tile: channel ch of sample s at
// ((s * c/B + ch/B) * hw + i) * B + ch%B. A block's B channels sit in one
// vector, so the loops run along the lanes; each channel's terms still add
// in a fixed order (sample, then position), whatever the thread count.

/// Row `row` (sample s, block blk: s * c/B + blk) of an nChw<B>c tile.
template <int B>
const float *blockRow(const float *t, int64_t row, int64_t hw) {
  return t + row * hw * B;
}

template <int B>
void batchNormPartialSumsBlocked(int64_t n, int64_t c, int64_t hw,
                                 const float *in, double *sum, double *sumSq) {
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
void batchNormForwardBlocked(int64_t n, int64_t c, int64_t hw,
                             const float *in, const float *mean,
                             const float *invStd, const float *scale,
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
void batchNormBackwardPartialSumsBlocked(int64_t n, int64_t c, int64_t hw,
                                         const float *in, const float *dOut,
                                         const float *mean,
                                         const float *invStd, double *sumDOut,
                                         double *sumDOutXhat) {
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
void batchNormBackwardDataBlocked(int64_t n, int64_t c, int64_t hw,
                                  int64_t count, const float *in,
                                  const float *dOut, const float *mean,
                                  const float *invStd, const float *scale,
                                  const double *sumDOut,
                                  const double *sumDOutXhat, float *dIn) {
  int64_t blocks = c / B;
  parallelFor(n * blocks, n * c * hw, [&](int64_t row) {
    int64_t ch0 = row % blocks * B;
    const float *x = blockRow<B>(in, row, hw);
    const float *dy = dOut + (x - in);
    float *dx = dIn + (x - in);
    float k[B], kx[B], k0[B], m[B];
    for (int l = 0; l < B; ++l) {
      int64_t ch = ch0 + l;
      double a = double(scale[ch]) * invStd[ch];
      k[l] = static_cast<float>(a);
      kx[l] = static_cast<float>(-a * invStd[ch] * sumDOutXhat[ch] / count);
      k0[l] = static_cast<float>(-a * sumDOut[ch] / count);
      m[l] = mean[ch];
    }
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

} // namespace

void batchNormPartialSums(int64_t n, int64_t c, int64_t hw, int64_t block,
                          const float *in, double *sum, double *sumSq) {
  if (block == 1)
    return batchNormPartialSumsPlain(n, c, hw, in, sum, sumSq);
  byBlock(block, c, [&](auto b) {
    batchNormPartialSumsBlocked<b()>(n, c, hw, in, sum, sumSq);
  });
}

void batchNormForward(int64_t n, int64_t c, int64_t hw, int64_t block,
                      const float *in, const float *mean, const float *invStd,
                      const float *scale, const float *shift, float *out,
                      bool relu) {
  auto forward = [&](auto applyRelu) {
    constexpr bool Relu = decltype(applyRelu)::value;
    if (block == 1)
      return batchNormForwardPlain<Relu>(n, c, hw, in, mean, invStd, scale,
                                         shift, out);
    byBlock(block, c, [&](auto b) {
      batchNormForwardBlocked<b(), Relu>(n, c, hw, in, mean, invStd, scale,
                                         shift, out);
    });
  };
  relu ? forward(std::true_type()) : forward(std::false_type());
}

void batchNormBackwardPartialSums(int64_t n, int64_t c, int64_t hw,
                                  int64_t block, const float *in,
                                  const float *dOut, const float *mean,
                                  const float *invStd, double *sumDOut,
                                  double *sumDOutXhat) {
  if (block == 1)
    return batchNormBackwardPartialSumsPlain(n, c, hw, in, dOut, mean, invStd,
                                             sumDOut, sumDOutXhat);
  byBlock(block, c, [&](auto b) {
    batchNormBackwardPartialSumsBlocked<b()>(n, c, hw, in, dOut, mean, invStd,
                                             sumDOut, sumDOutXhat);
  });
}

void batchNormBackwardData(int64_t n, int64_t c, int64_t hw, int64_t block,
                           int64_t count, const float *in, const float *dOut,
                           const float *mean, const float *invStd,
                           const float *scale, const double *sumDOut,
                           const double *sumDOutXhat, float *dIn) {
  if (block == 1)
    return batchNormBackwardDataPlain(n, c, hw, count, in, dOut, mean, invStd,
                                      scale, sumDOut, sumDOutXhat, dIn);
  byBlock(block, c, [&](auto b) {
    batchNormBackwardDataBlocked<b()>(n, c, hw, count, in, dOut, mean, invStd,
                                      scale, sumDOut, sumDOutXhat, dIn);
  });
}

void softmaxPartialMax(int64_t n, int64_t k, const float *logits,
                       float *max) {
  for (int64_t s = 0; s < n; ++s)
    for (int64_t j = 0; j < k; ++j)
      max[s] = std::max(max[s], logits[s * k + j]);
}

void softmaxPartialSum(int64_t n, int64_t k, const float *logits,
                       const float *max, double *sum) {
  for (int64_t s = 0; s < n; ++s)
    for (int64_t j = 0; j < k; ++j)
      sum[s] += std::exp(double(logits[s * k + j]) - max[s]);
}

double softmaxCrossEntropyPartialLoss(int64_t n, int64_t k,
                                      int64_t classOffset,
                                      const float *logits,
                                      const int32_t *labels, const float *max,
                                      const double *sum) {
  double loss = 0;
  for (int64_t s = 0; s < n; ++s) {
    int64_t j = int64_t(labels[s]) - classOffset;
    if (j < 0 || j >= k)
      continue; // Another tile holds this sample's label.
    loss -= double(logits[s * k + j]) - max[s] - std::log(sum[s]);
  }
  return loss;
}

void softmaxCrossEntropyBackward(int64_t n, int64_t k, int64_t classOffset,
                                 int64_t globalBatch, const float *logits,
                                 const int32_t *labels, const float *max,
                                 const double *sum, float *dLogits) {
  for (int64_t s = 0; s < n; ++s)
    for (int64_t j = 0; j < k; ++j) {
      double p = std::exp(double(logits[s * k + j]) - max[s]) / sum[s];
      if (labels[s] == classOffset + j)
        p -= 1;
      dLogits[s * k + j] = static_cast<float>(p / globalBatch);
    }
}

void dropout(const TileRegion &tile, uint64_t seed, uint64_t layer,
             float ratio, const float *in, float *out) {
  float keep = 1.0f / (1.0f - ratio);
  int64_t index[4];
  for (int64_t d = 0; d < tile.rank; ++d)
    index[d] = tile.lo[d];
  for (int64_t i = 0, v = tile.volume(); i < v; ++i) {
    int64_t global = 0;
    for (int64_t d = 0; d < tile.rank; ++d)
      global = global * tile.shape[d] + index[d];
    out[i] = uniform(seed, layer, global) < ratio ? 0.0f : in[i] * keep;
    for (int64_t d = tile.rank; d-- > 0;) {
      if (++index[d] < tile.hi[d])
        break;
      index[d] = tile.lo[d];
    }
  }
}

void add(int64_t count, const float *a, const float *b, float *out,
         bool relu) {
  if (relu)
    return parallelChunks(count, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        float y = a[i] + b[i];
        out[i] = y < 0.f ? 0.f : y; // as reluForward: NaN stays NaN
      }
    });
  parallelChunks(count, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out[i] = a[i] + b[i];
  });
}

namespace {

/// The loop for one function, so that the compiler folds Activation's
/// switch out of it.
template <ActivationFunction F, typename Body>
void withFixedFunction(const Activation &f, Body body) {
  Activation fixed = f;
  fixed.function = F;
  body(fixed);
}

template <typename Body> void dispatch(const Activation &f, Body body) {
  switch (f.function) {
  case ActivationFunction::Clip:
    return withFixedFunction<ActivationFunction::Clip>(f, body);
  case ActivationFunction::Sigmoid:
    return withFixedFunction<ActivationFunction::Sigmoid>(f, body);
  case ActivationFunction::HardSigmoid:
    return withFixedFunction<ActivationFunction::HardSigmoid>(f, body);
  case ActivationFunction::HardSwish:
    return withFixedFunction<ActivationFunction::HardSwish>(f, body);
  case ActivationFunction::Silu:
    return withFixedFunction<ActivationFunction::Silu>(f, body);
  case ActivationFunction::Gelu:
    return withFixedFunction<ActivationFunction::Gelu>(f, body);
  }
}

} // namespace

void activationForward(const Activation &f, int64_t count, const float *in,
                       float *out) {
  dispatch(f, [&](const Activation &g) {
    parallelChunks(count, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        out[i] = g.forward(in[i]);
    });
  });
}

void activationBackward(const Activation &f, int64_t count, const float *in,
                        const float *dOut, float *dIn) {
  dispatch(f, [&](const Activation &g) {
    parallelChunks(count, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        dIn[i] = g.backward(in[i], dOut[i]);
    });
  });
}

void binaryForward(BinaryFunction f, int64_t rows, int64_t cols,
                   bool broadcast, const float *a, const float *b,
                   float *out) {
  parallelFor(rows, rows * cols, [&](int64_t r) {
    for (int64_t i = 0; i < cols; ++i) {
      int64_t e = r * cols + i;
      out[e] = applyBinary(f, a[e], b[broadcast ? r : e]);
    }
  });
}

void binaryBackward(BinaryFunction f, int64_t rows, int64_t cols,
                    bool broadcast, const float *a, const float *b,
                    const float *dOut, float *dA, float *dB) {
  parallelFor(rows, rows * cols, [&](int64_t r) {
    double rowSum = 0;
    for (int64_t i = 0; i < cols; ++i) {
      int64_t e = r * cols + i;
      float y = b[broadcast ? r : e];
      if (dA)
        dA[e] = binaryGradLhs(f, y, dOut[e]);
      if (!dB)
        continue;
      float g = binaryGradRhs(f, a[e], y, dOut[e]);
      if (broadcast)
        rowSum += g;
      else
        dB[e] = g;
    }
    if (dB && broadcast)
      dB[r] = float(rowSum);
  });
}

void sgdMomentum(int64_t count, float lr, float momentum, float weightDecay,
                 bool nesterov, float *param, const float *grad,
                 float *velocity) {
  // In PyTorch's order of operations, so that both round alike.
  parallelChunks(count, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      float d = grad[i] + weightDecay * param[i];
      velocity[i] = momentum * velocity[i] + d;
      param[i] -= lr * (nesterov ? d + momentum * velocity[i] : velocity[i]);
    }
  });
}

} // namespace hdrt::cpu
