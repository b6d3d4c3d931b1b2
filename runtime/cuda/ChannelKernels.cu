//===- ChannelKernels.cu - layer norm and channel shuffle on the GPU ------===//
//
// Kernels that read every channel of a pixel: one thread per pixel walks
// the channels (neighbouring threads read neighbouring pixels, so the reads
// coalesce), sums in double as the CPU loops do, and the per-channel
// parameter gradients take one block per channel.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "Launch.cuh"

namespace hdrt::cuda {

namespace {

__global__ void layerNormSumsKernel(int64_t n, int64_t c, int64_t hw,
                                    const float *in, const float *dOut,
                                    const float *mean, const float *invStd,
                                    const float *scale, double *sums) {
  int64_t pixels = n * hw;
  FOR_EACH(p, pixels) {
    int64_t s = p / hw, i = p % hw;
    double a = 0, b = 0;
    for (int64_t ch = 0; ch < c; ++ch) {
      float x = in[(s * c + ch) * hw + i];
      if (!dOut) {
        a += x;
        b += double(x) * x;
      } else {
        double g = double(dOut[(s * c + ch) * hw + i]) * scale[ch];
        a += g;
        b += g * ((x - mean[p]) * invStd[p]);
      }
    }
    sums[p] = a;
    sums[pixels + p] = b;
  }
}

__global__ void layerNormStatisticsKernel(int64_t pixels, int64_t channels,
                                          double eps, const double *sums,
                                          float *mean, float *invStd) {
  FOR_EACH(p, pixels) {
    double m = sums[p] / channels;
    double var = fmax(sums[pixels + p] / channels - m * m, 0.0);
    mean[p] = float(m);
    invStd[p] = float(1.0 / sqrt(var + eps));
  }
}

__global__ void layerNormForwardKernel(int64_t n, int64_t c, int64_t hw,
                                       const float *in, const float *scale,
                                       const float *shift, const float *mean,
                                       const float *invStd, float *out) {
  FOR_EACH(e, n * c * hw) {
    int64_t i = e % hw, ch = (e / hw) % c, p = e / (c * hw) * hw + i;
    out[e] = (in[e] - mean[p]) * invStd[p] * scale[ch] + shift[ch];
  }
}

/// One block per channel: its scale and shift gradients over the tile.
__global__ void layerNormParamGradsKernel(int64_t n, int64_t c, int64_t hw,
                                          const float *in, const float *dOut,
                                          const float *mean,
                                          const float *invStd, float *dScale,
                                          float *dShift) {
  int64_t ch = blockIdx.x;
  double ds = 0, db = 0;
  for (int64_t j = threadIdx.x; j < n * hw; j += blockDim.x) {
    int64_t s = j / hw, i = j % hw, e = (s * c + ch) * hw + i;
    ds += double(dOut[e]) * ((in[e] - mean[j]) * invStd[j]);
    db += dOut[e];
  }
  ds = blockSum(ds);
  db = blockSum(db);
  if (threadIdx.x == 0) {
    dScale[ch] = float(ds);
    dShift[ch] = float(db);
  }
}

__global__ void layerNormBackwardDataKernel(
    int64_t n, int64_t c, int64_t hw, int64_t channels, const float *in,
    const float *dOut, const float *mean, const float *invStd,
    const float *scale, const double *sums, float *dIn) {
  int64_t pixels = n * hw;
  FOR_EACH(e, n * c * hw) {
    int64_t i = e % hw, ch = (e / hw) % c, p = e / (c * hw) * hw + i;
    double xhat = (in[e] - mean[p]) * invStd[p];
    double g = double(dOut[e]) * scale[ch];
    dIn[e] = float(invStd[p] * (g - sums[p] / channels -
                                xhat * sums[pixels + p] / channels));
  }
}

__global__ void channelShuffleKernel(int64_t n, int64_t c, int64_t hw,
                                     int64_t groups, const float *in,
                                     float *out) {
  int64_t perGroup = c / groups;
  FOR_EACH(e, n * c * hw) {
    int64_t i = e % hw, o = (e / hw) % c, s = e / (c * hw);
    int64_t from = (o % groups) * perGroup + o / groups;
    out[e] = in[(s * c + from) * hw + i];
  }
}

} // namespace

void layerNormPartialSums(cudaStream_t s, int64_t n, int64_t c, int64_t hw,
                          const float *in, double *sums) {
  if (n * hw > 0)
    layerNormSumsKernel<<<blocksFor(n * hw), kThreads, 0, s>>>(
        n, c, hw, in, nullptr, nullptr, nullptr, nullptr, sums);
}

void layerNormForward(cudaStream_t s, int64_t n, int64_t c, int64_t hw,
                      int64_t channels, double eps, const double *sums,
                      const float *in, const float *scale, const float *shift,
                      float *mean, float *invStd, float *out) {
  if (n * hw <= 0)
    return;
  layerNormStatisticsKernel<<<blocksFor(n * hw), kThreads, 0, s>>>(
      n * hw, channels, eps, sums, mean, invStd);
  if (c > 0)
    layerNormForwardKernel<<<blocksFor(n * c * hw), kThreads, 0, s>>>(
        n, c, hw, in, scale, shift, mean, invStd, out);
}

void layerNormBackwardPartialSums(cudaStream_t s, int64_t n, int64_t c,
                                  int64_t hw, const float *in,
                                  const float *dOut, const float *mean,
                                  const float *invStd, const float *scale,
                                  double *sums) {
  if (n * hw > 0)
    layerNormSumsKernel<<<blocksFor(n * hw), kThreads, 0, s>>>(
        n, c, hw, in, dOut, mean, invStd, scale, sums);
}

void layerNormBackward(cudaStream_t s, int64_t n, int64_t c, int64_t hw,
                       int64_t channels, const float *in, const float *dOut,
                       const float *mean, const float *invStd,
                       const float *scale, const double *sums, float *dIn,
                       float *dScale, float *dShift) {
  if (c <= 0)
    return;
  // A tile without pixels still writes its (zero) share of the parameter
  // gradients, as the CPU loop does.
  layerNormParamGradsKernel<<<unsigned(c), kThreads, 0, s>>>(
      n, c, hw, in, dOut, mean, invStd, dScale, dShift);
  if (dIn && n * hw > 0)
    layerNormBackwardDataKernel<<<blocksFor(n * c * hw), kThreads, 0, s>>>(
        n, c, hw, channels, in, dOut, mean, invStd, scale, sums, dIn);
}

void channelShuffle(cudaStream_t s, int64_t n, int64_t c, int64_t hw,
                    int64_t groups, const float *in, float *out) {
  if (n * c * hw > 0)
    channelShuffleKernel<<<blocksFor(n * c * hw), kThreads, 0, s>>>(
        n, c, hw, groups, in, out);
}

} // namespace hdrt::cuda
