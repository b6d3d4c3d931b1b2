//===- Kernels.cu - the CUDA backend's own kernels ------------------------===//
//
// Plain kernels: one thread per output element, or one block per reduced
// channel or sample with a shared-memory tree. Reductions accumulate in
// double, as the CPU loops do, so that a split layer sums the same values.
//
// About 600 lines: the kernels of the layers hd started with and of the
// executor's copies; the activations and products are in
// ElementwiseKernels.cu, and the launch and reduction helpers they share in
// Launch.cuh.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "Launch.cuh"

#include "hdrt/Random.h"

#include <cfloat>
#include <cmath>

namespace hdrt::cuda {

namespace {

__global__ void fillKernel(float *dst, int64_t count, float value) {
  FOR_EACH(i, count) dst[i] = value;
}

struct Box4 {
  int64_t lo[4], extent[4];
};

Box4 box4(const Box &b) {
  Box4 r;
  for (int d = 0; d < 4; ++d) {
    r.lo[d] = d < b.rank ? b.lo[d] : 0;
    r.extent[d] = d < b.rank ? b.hi[d] - b.lo[d] : 1;
  }
  return r;
}

__global__ void copyRegionKernel(const float *src, Box4 srcBox, float *dst,
                                 Box4 dstBox, Box4 region, int64_t volume,
                                 bool add) {
  FOR_EACH(i, volume) {
    int64_t rest = i, s = 0, t = 0, index[4];
    for (int d = 3; d >= 0; --d) {
      index[d] = region.lo[d] + rest % region.extent[d];
      rest /= region.extent[d];
    }
    for (int d = 0; d < 4; ++d) {
      s = s * srcBox.extent[d] + (index[d] - srcBox.lo[d]);
      t = t * dstBox.extent[d] + (index[d] - dstBox.lo[d]);
    }
    if (add)
      dst[t] += src[s];
    else
      dst[t] = src[s];
  }
}

__global__ void nonFiniteKernel(const float *data, int64_t count, int *flag) {
  FOR_EACH(i, count) if (!isfinite(data[i])) *flag = 1;
}

__global__ void fillChannelsKernel(int64_t total, int64_t c, int64_t hw,
                                   const float *perChannel, float *out) {
  FOR_EACH(i, total) out[i] = perChannel ? perChannel[(i / hw) % c] : 0.0f;
}

/// One block per channel.
__global__ void sumChannelsKernel(int64_t n, int64_t c, int64_t hw,
                                  const float *in, float *out) {
  int64_t ch = blockIdx.x;
  double sum = 0;
  for (int64_t j = threadIdx.x; j < n * hw; j += blockDim.x)
    sum += in[((j / hw) * c + ch) * hw + j % hw];
  sum = blockSum(sum);
  if (threadIdx.x == 0)
    out[ch] = float(sum);
}

__global__ void addRowBiasKernel(int64_t total, int64_t k, const float *bias,
                                 float *out) {
  FOR_EACH(i, total) out[i] += bias[i % k];
}

__global__ void sumRowsKernel(int64_t rows, int64_t k, const float *dOut,
                              float *dBias) {
  FOR_EACH(j, k) {
    double sum = 0;
    for (int64_t r = 0; r < rows; ++r)
      sum += dOut[r * k + j];
    dBias[j] = float(sum);
  }
}

__global__ void reluForwardKernel(int64_t count, const float *in, float *out) {
  // NaN stays NaN (x < 0 is false), as on the CPU.
  FOR_EACH(i, count) out[i] = in[i] < 0.f ? 0.f : in[i];
}

__global__ void reluBackwardKernel(int64_t count, const float *in,
                                   const float *dOut, float *dIn) {
  // A NaN input passes its gradient (x <= 0 is false), as oneDNN and
  // PyTorch's threshold_backward do.
  FOR_EACH(i, count) dIn[i] = in[i] <= 0.f ? 0.f : dOut[i];
}

__global__ void addKernel(int64_t count, const float *a, const float *b,
                          float *out) {
  FOR_EACH(i, count) out[i] = a[i] + b[i];
}

__global__ void dropoutKernel(TileRegion tile, int64_t volume,
                              uint64_t seed, uint64_t stream, float ratio,
                              const float *in, float *out) {
  float keep = 1.0f / (1.0f - ratio);
  FOR_EACH(i, volume) {
    int64_t rest = i, index[4] = {0, 0, 0, 0};
    for (int64_t d = tile.rank - 1; d >= 0; --d) {
      int64_t extent = tile.hi[d] - tile.lo[d];
      index[d] = tile.lo[d] + rest % extent;
      rest /= extent;
    }
    int64_t global = 0;
    for (int64_t d = 0; d < tile.rank; ++d)
      global = global * tile.shape[d] + index[d];
    out[i] = uniform(seed, stream, uint64_t(global)) < ratio ? 0.0f
                                                             : in[i] * keep;
  }
}

__global__ void sgdKernel(int64_t count, float lr, float momentum,
                          float weightDecay, bool nesterov, float *param,
                          const float *grad, float *velocity) {
  FOR_EACH(i, count) {
    float d = grad[i] + weightDecay * param[i];
    float v = momentum * velocity[i] + d;
    velocity[i] = v;
    param[i] -= lr * (nesterov ? d + momentum * v : v);
  }
}

//===--- Pooling: windows over an input box with per-side padding --------===//

struct PoolGeometry {
  int64_t n, c, h, w, outH, outW, kh, kw, sh, sw, pt, pl;
  bool max, countIncludePad;
};

PoolGeometry geometryOf(const Pool2dShape &p) {
  const Window2d &w = p.window;
  return {w.n,       w.c,       w.h,         w.w,       w.outH(),
          w.outW(),  w.kh,      w.kw,        w.strideH, w.strideW,
          w.padTop,  w.padLeft, p.max,       p.countIncludePad};
}

/// The window of output (y, x) clipped to the input box: rows [y0, y1),
/// columns [x0, x1).
__device__ void windowOf(const PoolGeometry &g, int64_t y, int64_t x,
                         int64_t &y0, int64_t &y1, int64_t &x0, int64_t &x1) {
  int64_t top = y * g.sh - g.pt, left = x * g.sw - g.pl;
  y0 = max(top, int64_t(0));
  y1 = min(top + g.kh, g.h);
  x0 = max(left, int64_t(0));
  x1 = min(left + g.kw, g.w);
}

__global__ void poolForwardKernel(PoolGeometry g, const float *in,
                                  float *out) {
  int64_t total = g.n * g.c * g.outH * g.outW;
  FOR_EACH(i, total) {
    int64_t x = i % g.outW, y = (i / g.outW) % g.outH, plane = i / (g.outH * g.outW);
    const float *src = in + plane * g.h * g.w;
    int64_t y0, y1, x0, x1;
    windowOf(g, y, x, y0, y1, x0, x1);
    if (g.max) {
      // A NaN in the window wins (fmaxf would drop it): a diverging step
      // must stay visible to the loss and the finiteness check.
      float best = -FLT_MAX;
      for (int64_t r = y0; r < y1; ++r)
        for (int64_t q = x0; q < x1; ++q) {
          float v = src[r * g.w + q];
          best = (v > best || v != v) ? v : best;
        }
      out[i] = best;
    } else {
      double sum = 0;
      for (int64_t r = y0; r < y1; ++r)
        for (int64_t q = x0; q < x1; ++q)
          sum += src[r * g.w + q];
      int64_t count = g.countIncludePad ? g.kh * g.kw : (y1 - y0) * (x1 - x0);
      out[i] = count > 0 ? float(sum / count) : 0.0f;
    }
  }
}

__global__ void poolBackwardKernel(PoolGeometry g, const float *in,
                                   const float *dOut, float *dIn) {
  int64_t total = g.n * g.c * g.outH * g.outW;
  FOR_EACH(i, total) {
    int64_t x = i % g.outW, y = (i / g.outW) % g.outH, plane = i / (g.outH * g.outW);
    const float *src = in + plane * g.h * g.w;
    float *dst = dIn + plane * g.h * g.w;
    int64_t y0, y1, x0, x1;
    windowOf(g, y, x, y0, y1, x0, x1);
    if (g.max) {
      // The gradient goes to the window's first maximum.
      int64_t at = -1;
      float best = -FLT_MAX;
      for (int64_t r = y0; r < y1; ++r)
        for (int64_t q = x0; q < x1; ++q)
          if (at < 0 || src[r * g.w + q] > best) {
            best = src[r * g.w + q];
            at = r * g.w + q;
          }
      if (at >= 0)
        atomicAdd(dst + at, dOut[i]);
    } else {
      int64_t count = g.countIncludePad ? g.kh * g.kw : (y1 - y0) * (x1 - x0);
      if (count == 0)
        continue;
      float share = dOut[i] / float(count);
      for (int64_t r = y0; r < y1; ++r)
        for (int64_t q = x0; q < x1; ++q)
          atomicAdd(dst + r * g.w + q, share);
    }
  }
}

//===--- Batch norm ------------------------------------------------------===//

/// A channel's n * hw values are cut into slices of about kSliceValues so
/// that a small channel count still fills the GPU: block (channel, slice)
/// writes its slice's two sums, and bnCombineKernel adds the slices in
/// order, so that the result does not depend on scheduling.
constexpr int64_t kSliceValues = 4096;
constexpr int64_t kMaxSlices = 1024;

int64_t slicesFor(int64_t n, int64_t hw) {
  int64_t slices = (n * hw + kSliceValues - 1) / kSliceValues;
  return slices < 1 ? 1 : (slices > kMaxSlices ? kMaxSlices : slices);
}

/// Forward: the sums of x and x^2. Backward: of dy and dy * xhat.
/// partials[slice * 2c + ch] and partials[slice * 2c + c + ch].
template <bool Backward>
__global__ void bnSliceSumsKernel(int64_t n, int64_t c, int64_t hw,
                                  int64_t perSlice, const float *in,
                                  const float *dOut, const float *mean,
                                  const float *invStd, double *partials) {
  int64_t ch = blockIdx.x, slice = blockIdx.y;
  int64_t begin = slice * perSlice, end = min(begin + perSlice, n * hw);
  double a = 0, b = 0;
  for (int64_t j = begin + threadIdx.x; j < end; j += blockDim.x) {
    int64_t at = ((j / hw) * c + ch) * hw + j % hw;
    if (Backward) {
      a += dOut[at];
      b += double(dOut[at]) * (in[at] - mean[ch]) * invStd[ch];
    } else {
      double x = in[at];
      a += x;
      b += x * x;
    }
  }
  a = blockSum(a);
  b = blockSum(b);
  if (threadIdx.x == 0) {
    partials[slice * 2 * c + ch] = a;
    partials[slice * 2 * c + c + ch] = b;
  }
}

__global__ void bnCombineKernel(int64_t c, int64_t slices,
                                const double *partials, double *sums) {
  FOR_EACH(i, 2 * c) {
    double total = 0;
    for (int64_t s = 0; s < slices; ++s)
      total += partials[s * 2 * c + i];
    sums[i] = total;
  }
}

/// Both sums kernels: one slice writes straight into `sums`.
template <bool Backward>
void bnSums(cudaStream_t s, int64_t n, int64_t c, int64_t hw, const float *in,
            const float *dOut, const float *mean, const float *invStd,
            double *partials, double *sums) {
  if (c <= 0)
    return;
  int64_t slices = slicesFor(n, hw);
  int64_t perSlice = (n * hw + slices - 1) / slices;
  double *out = slices == 1 ? sums : partials;
  bnSliceSumsKernel<Backward><<<dim3(unsigned(c), unsigned(slices)), kThreads,
                                0, s>>>(n, c, hw, perSlice, in, dOut, mean,
                                        invStd, out);
  if (slices > 1)
    bnCombineKernel<<<blocksFor(2 * c), kThreads, 0, s>>>(c, slices, partials,
                                                          sums);
}

__global__ void bnStatisticsKernel(int64_t c, int64_t count, double eps,
                                   const double *sums, float *mean,
                                   float *invStd) {
  FOR_EACH(ch, c) {
    double m = sums[ch] / count;
    double var = fmax(0.0, sums[c + ch] / count - m * m);
    mean[ch] = float(m);
    invStd[ch] = float(1.0 / sqrt(var + eps));
  }
}

__global__ void bnRunningUpdateKernel(int64_t c, int64_t count,
                                      double momentum, const double *sums,
                                      float *runningMean, float *runningVar) {
  FOR_EACH(ch, c) {
    double m = sums[ch] / count;
    double var = fmax(0.0, sums[c + ch] / count - m * m);
    double unbiased = count > 1 ? var * count / (count - 1) : var;
    runningMean[ch] = float(momentum * runningMean[ch] + (1 - momentum) * m);
    runningVar[ch] =
        float(momentum * runningVar[ch] + (1 - momentum) * unbiased);
  }
}

__global__ void bnInvStdKernel(int64_t c, double eps, const float *var,
                               float *invStd) {
  FOR_EACH(ch, c) { invStd[ch] = float(1.0 / sqrt(double(var[ch]) + eps)); }
}

__global__ void bnForwardKernel(int64_t total, int64_t c, int64_t hw,
                                const float *in, const float *mean,
                                const float *invStd, const float *scale,
                                const float *shift, float *out) {
  FOR_EACH(i, total) {
    int64_t ch = (i / hw) % c;
    float a = scale[ch] * invStd[ch];
    out[i] = a * in[i] + (shift[ch] - a * mean[ch]);
  }
}

__global__ void bnParamGradsKernel(int64_t c, const double *sums,
                                   float *dScale, float *dShift) {
  FOR_EACH(ch, c) {
    dScale[ch] = float(sums[c + ch]);
    dShift[ch] = float(sums[ch]);
  }
}

__global__ void bnBackwardDataKernel(int64_t total, int64_t c, int64_t hw,
                                     int64_t count, const float *in,
                                     const float *dOut, const float *mean,
                                     const float *invStd, const float *scale,
                                     const double *sums, float *dIn) {
  FOR_EACH(i, total) {
    int64_t ch = (i / hw) % c;
    double meanDy = sums[ch] / count, meanDyXhat = sums[c + ch] / count;
    double xhat = (in[i] - mean[ch]) * double(invStd[ch]);
    dIn[i] = float(double(scale[ch]) * invStd[ch] *
                   (dOut[i] - meanDy - xhat * meanDyXhat));
  }
}

//===--- Softmax cross-entropy: one block per sample ---------------------===//

__global__ void softmaxMaxKernel(int64_t k, const float *logits, float *max) {
  __shared__ float best[kThreads];
  int64_t s = blockIdx.x;
  float m = -INFINITY;
  for (int64_t j = threadIdx.x; j < k; j += blockDim.x)
    m = fmaxf(m, logits[s * k + j]);
  best[threadIdx.x] = m;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      best[threadIdx.x] = fmaxf(best[threadIdx.x], best[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    max[s] = best[0];
}

__global__ void softmaxSumKernel(int64_t k, const float *logits,
                                 const float *max, double *sum) {
  int64_t s = blockIdx.x;
  double total = 0;
  for (int64_t j = threadIdx.x; j < k; j += blockDim.x)
    total += exp(double(logits[s * k + j]) - max[s]);
  total = blockSum(total);
  if (threadIdx.x == 0)
    sum[s] = total;
}

__global__ void softmaxLossKernel(int64_t n, int64_t k, int64_t classOffset,
                                  const float *logits, const int32_t *labels,
                                  const float *max, const double *sum,
                                  double *loss) {
  double mine = 0;
  for (int64_t s = threadIdx.x; s < n; s += blockDim.x) {
    int64_t j = int64_t(labels[s]) - classOffset;
    if (j >= 0 && j < k)
      mine -= double(logits[s * k + j]) - max[s] - log(sum[s]);
  }
  mine = blockSum(mine);
  if (threadIdx.x == 0)
    *loss = mine;
}

__global__ void softmaxBackwardKernel(int64_t total, int64_t k,
                                      int64_t classOffset, int64_t batch,
                                      const float *logits,
                                      const int32_t *labels, const float *max,
                                      const double *sum, float *dLogits) {
  FOR_EACH(i, total) {
    int64_t s = i / k, j = i % k;
    double p = exp(double(logits[i]) - max[s]) / sum[s];
    if (labels[s] == classOffset + j)
      p -= 1;
    dLogits[i] = float(p / batch);
  }
}

} // namespace

void fill(cudaStream_t s, float *dst, int64_t count, float value) {
  if (count > 0)
    fillKernel<<<blocksFor(count), kThreads, 0, s>>>(dst, count, value);
}

void copyRegion(cudaStream_t s, const float *src, const Box &srcBox,
                float *dst, const Box &dstBox, const Box &region, bool add) {
  int64_t volume = region.volume();
  if (volume > 0)
    copyRegionKernel<<<blocksFor(volume), kThreads, 0, s>>>(
        src, box4(srcBox), dst, box4(dstBox), box4(region), volume, add);
}

void findNonFinite(cudaStream_t s, const float *data, int64_t count,
                   int *flag) {
  if (count > 0)
    nonFiniteKernel<<<blocksFor(count), kThreads, 0, s>>>(data, count, flag);
}

void fillChannels(cudaStream_t s, int64_t n, int64_t c, int64_t hw,
                  const float *perChannel, float *out) {
  int64_t total = n * c * hw;
  if (total > 0)
    fillChannelsKernel<<<blocksFor(total), kThreads, 0, s>>>(total, c, hw,
                                                             perChannel, out);
}

void sumChannels(cudaStream_t s, int64_t n, int64_t c, int64_t hw,
                 const float *in, float *out) {
  if (c > 0)
    sumChannelsKernel<<<unsigned(c), kThreads, 0, s>>>(n, c, hw, in, out);
}

void addRowBias(cudaStream_t s, int64_t rows, int64_t k, const float *bias,
                float *out) {
  int64_t total = rows * k;
  if (total > 0)
    addRowBiasKernel<<<blocksFor(total), kThreads, 0, s>>>(total, k, bias,
                                                           out);
}

void sumRows(cudaStream_t s, int64_t rows, int64_t k, const float *dOut,
             float *dBias) {
  if (k > 0)
    sumRowsKernel<<<blocksFor(k), kThreads, 0, s>>>(rows, k, dOut, dBias);
}

void reluForward(cudaStream_t s, int64_t count, const float *in, float *out) {
  if (count > 0)
    reluForwardKernel<<<blocksFor(count), kThreads, 0, s>>>(count, in, out);
}

void reluBackward(cudaStream_t s, int64_t count, const float *in,
                  const float *dOut, float *dIn) {
  if (count > 0)
    reluBackwardKernel<<<blocksFor(count), kThreads, 0, s>>>(count, in, dOut,
                                                             dIn);
}

void add(cudaStream_t s, int64_t count, const float *a, const float *b,
         float *out) {
  if (count > 0)
    addKernel<<<blocksFor(count), kThreads, 0, s>>>(count, a, b, out);
}

void dropout(cudaStream_t s, const TileRegion &tile, uint64_t seed,
             uint64_t stream, float ratio, const float *in, float *out) {
  int64_t volume = tile.volume();
  if (volume > 0)
    dropoutKernel<<<blocksFor(volume), kThreads, 0, s>>>(
        tile, volume, seed, stream, ratio, in, out);
}

void sgdMomentum(cudaStream_t s, int64_t count, float lr, float momentum,
                 float weightDecay, bool nesterov, float *param,
                 const float *grad, float *velocity) {
  if (count > 0)
    sgdKernel<<<blocksFor(count), kThreads, 0, s>>>(
        count, lr, momentum, weightDecay, nesterov, param, grad, velocity);
}

void pool2dForward(cudaStream_t s, const Pool2dShape &p, const float *in,
                   float *out) {
  PoolGeometry g = geometryOf(p);
  int64_t total = g.n * g.c * g.outH * g.outW;
  if (total > 0)
    poolForwardKernel<<<blocksFor(total), kThreads, 0, s>>>(g, in, out);
}

void pool2dBackward(cudaStream_t s, const Pool2dShape &p,
                    const float *in, const float *dOut, float *dIn) {
  PoolGeometry g = geometryOf(p);
  fill(s, dIn, g.n * g.c * g.h * g.w, 0.0f);
  int64_t total = g.n * g.c * g.outH * g.outW;
  if (total > 0)
    poolBackwardKernel<<<blocksFor(total), kThreads, 0, s>>>(g, in, dOut,
                                                             dIn);
}

int64_t batchNormScratchCount(int64_t n, int64_t c, int64_t hw) {
  return slicesFor(n, hw) * 2 * c;
}

void batchNormPartialSums(cudaStream_t s, int64_t n, int64_t c, int64_t hw,
                          const float *in, double *scratch, double *sums) {
  bnSums<false>(s, n, c, hw, in, nullptr, nullptr, nullptr, scratch, sums);
}

void batchNormStatistics(cudaStream_t s, int64_t c, int64_t count, double eps,
                         const double *sums, float *mean, float *invStd) {
  if (c > 0)
    bnStatisticsKernel<<<blocksFor(c), kThreads, 0, s>>>(c, count, eps, sums,
                                                         mean, invStd);
}

void batchNormRunningUpdate(cudaStream_t s, int64_t c, int64_t count,
                            double momentum, const double *sums,
                            float *runningMean, float *runningVar) {
  if (c > 0)
    bnRunningUpdateKernel<<<blocksFor(c), kThreads, 0, s>>>(
        c, count, momentum, sums, runningMean, runningVar);
}

void batchNormInvStd(cudaStream_t s, int64_t c, double eps, const float *var,
                     float *invStd) {
  if (c > 0)
    bnInvStdKernel<<<blocksFor(c), kThreads, 0, s>>>(c, eps, var, invStd);
}

void batchNormForward(cudaStream_t s, int64_t n, int64_t c, int64_t hw,
                      const float *in, const float *mean, const float *invStd,
                      const float *scale, const float *shift, float *out) {
  int64_t total = n * c * hw;
  if (total > 0)
    bnForwardKernel<<<blocksFor(total), kThreads, 0, s>>>(
        total, c, hw, in, mean, invStd, scale, shift, out);
}

void batchNormBackwardPartialSums(cudaStream_t s, int64_t n, int64_t c,
                                  int64_t hw, const float *in,
                                  const float *dOut, const float *mean,
                                  const float *invStd, double *scratch,
                                  double *sums) {
  bnSums<true>(s, n, c, hw, in, dOut, mean, invStd, scratch, sums);
}

void batchNormParamGrads(cudaStream_t s, int64_t c, const double *sums,
                         float *dScale, float *dShift) {
  if (c > 0)
    bnParamGradsKernel<<<blocksFor(c), kThreads, 0, s>>>(c, sums, dScale,
                                                         dShift);
}

void batchNormBackwardData(cudaStream_t s, int64_t n, int64_t c, int64_t hw,
                           int64_t count, const float *in, const float *dOut,
                           const float *mean, const float *invStd,
                           const float *scale, const double *sums,
                           float *dIn) {
  int64_t total = n * c * hw;
  if (total > 0)
    bnBackwardDataKernel<<<blocksFor(total), kThreads, 0, s>>>(
        total, c, hw, count, in, dOut, mean, invStd, scale, sums, dIn);
}

void softmaxPartialMax(cudaStream_t s, int64_t n, int64_t k,
                       const float *logits, float *max) {
  if (n > 0)
    softmaxMaxKernel<<<unsigned(n), kThreads, 0, s>>>(k, logits, max);
}

void softmaxPartialSum(cudaStream_t s, int64_t n, int64_t k,
                       const float *logits, const float *max, double *sum) {
  if (n > 0)
    softmaxSumKernel<<<unsigned(n), kThreads, 0, s>>>(k, logits, max, sum);
}

void softmaxCrossEntropyPartialLoss(cudaStream_t s, int64_t n, int64_t k,
                                    int64_t classOffset, const float *logits,
                                    const int32_t *labels, const float *max,
                                    const double *sum, double *loss) {
  softmaxLossKernel<<<1, kThreads, 0, s>>>(n, k, classOffset, logits, labels,
                                           max, sum, loss);
}

void softmaxCrossEntropyBackward(cudaStream_t s, int64_t n, int64_t k,
                                 int64_t classOffset, int64_t globalBatch,
                                 const float *logits, const int32_t *labels,
                                 const float *max, const double *sum,
                                 float *dLogits) {
  int64_t total = n * k;
  if (total > 0)
    softmaxBackwardKernel<<<blocksFor(total), kThreads, 0, s>>>(
        total, k, classOffset, globalBatch, logits, labels, max, sum, dLogits);
}

} // namespace hdrt::cuda
