//===- LayerNormCuda.cu - layer norm over channels on the GPU -------------===//
//
// One thread per pixel walks the channels (neighbouring threads read
// neighbouring pixels, so the reads coalesce) and sums in double as the
// CPU loops do; the per-channel parameter gradients take one block per
// channel.
//
//===----------------------------------------------------------------------===//

#include "LayerNormKernels.h"

#include "cuda/Check.h"
#include "cuda/CudaDevice.h"
#include "cuda/Launch.cuh"

namespace hdrt {

namespace {

using cuda::blocksFor;
using cuda::kThreads;

__global__ void sumsKernel(int64_t n, int64_t c, int64_t hw, const float *in,
                           const float *dOut, const float *mean,
                           const float *invStd, const float *scale,
                           double *sums) {
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
        b += g * layerNormXhat(x, mean[p], invStd[p]);
      }
    }
    sums[p] = a;
    sums[pixels + p] = b;
  }
}

__global__ void statisticsKernel(int64_t pixels, int64_t channels, double eps,
                                 const double *sums, float *mean,
                                 float *invStd) {
  FOR_EACH(p, pixels)
  meanAndInvStd(sums[p], sums[pixels + p], channels, eps, mean[p], invStd[p]);
}

__global__ void forwardKernel(int64_t n, int64_t c, int64_t hw, const float *in,
                              const float *scale, const float *shift,
                              const float *mean, const float *invStd,
                              float *out) {
  FOR_EACH(e, n * c * hw) {
    int64_t i = e % hw, ch = (e / hw) % c, p = e / (c * hw) * hw + i;
    out[e] = layerNormXhat(in[e], mean[p], invStd[p]) * scale[ch] + shift[ch];
  }
}

/// One block per channel: its scale and shift gradients over the tile.
__global__ void paramGradsKernel(int64_t n, int64_t c, int64_t hw,
                                 const float *in, const float *dOut,
                                 const float *mean, const float *invStd,
                                 float *dScale, float *dShift) {
  int64_t ch = blockIdx.x;
  double ds = 0, db = 0;
  for (int64_t j = threadIdx.x; j < n * hw; j += blockDim.x) {
    int64_t s = j / hw, i = j % hw, e = (s * c + ch) * hw + i;
    ds += double(dOut[e]) * layerNormXhat(in[e], mean[j], invStd[j]);
    db += dOut[e];
  }
  ds = cuda::blockSum(ds);
  db = cuda::blockSum(db);
  if (threadIdx.x == 0) {
    dScale[ch] = float(ds);
    dShift[ch] = float(db);
  }
}

__global__ void inputGradKernel(int64_t n, int64_t c, int64_t hw,
                                int64_t channels, const float *in,
                                const float *dOut, const float *mean,
                                const float *invStd, const float *scale,
                                const double *sums, float *dIn) {
  int64_t pixels = n * hw;
  FOR_EACH(e, n * c * hw) {
    int64_t i = e % hw, ch = (e / hw) % c, p = e / (c * hw) * hw + i;
    dIn[e] = layerNormInputGrad(in[e], dOut[e], scale[ch], mean[p], invStd[p],
                                sums[p], sums[pixels + p], channels);
  }
}

class CudaLayerNorm final : public LayerNormKernels {
public:
  explicit CudaLayerNorm(Device &d)
      : stream_(cuda::CudaDevice::of(d).stream()) {}

  void partialSums(int64_t n, int64_t c, int64_t hw, const float *in,
                   double *sums) override {
    if (n * hw > 0)
      sumsKernel<<<blocksFor(n * hw), kThreads, 0, stream_>>>(
          n, c, hw, in, nullptr, nullptr, nullptr, nullptr, sums);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  void forward(int64_t n, int64_t c, int64_t hw, int64_t channels, double eps,
               const double *sums, const float *in, const float *scale,
               const float *shift, float *mean, float *invStd,
               float *out) override {
    if (n * hw <= 0)
      return;
    statisticsKernel<<<blocksFor(n * hw), kThreads, 0, stream_>>>(
        n * hw, channels, eps, sums, mean, invStd);
    if (c > 0)
      forwardKernel<<<blocksFor(n * c * hw), kThreads, 0, stream_>>>(
          n, c, hw, in, scale, shift, mean, invStd, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  void backwardPartialSums(int64_t n, int64_t c, int64_t hw, const float *in,
                           const float *dOut, const float *mean,
                           const float *invStd, const float *scale,
                           double *sums) override {
    if (n * hw > 0)
      sumsKernel<<<blocksFor(n * hw), kThreads, 0, stream_>>>(
          n, c, hw, in, dOut, mean, invStd, scale, sums);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  void backward(int64_t n, int64_t c, int64_t hw, int64_t channels,
                const float *in, const float *dOut, const float *mean,
                const float *invStd, const float *scale, const double *sums,
                float *dIn, float *dScale, float *dShift) override {
    if (c <= 0)
      return;
    // A tile without pixels still writes its (zero) share of the parameter
    // gradients, as the CPU loop does.
    paramGradsKernel<<<unsigned(c), kThreads, 0, stream_>>>(
        n, c, hw, in, dOut, mean, invStd, dScale, dShift);
    if (dIn && n * hw > 0)
      inputGradKernel<<<blocksFor(n * c * hw), kThreads, 0, stream_>>>(
          n, c, hw, channels, in, dOut, mean, invStd, scale, sums, dIn);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

private:
  cudaStream_t stream_;
};

} // namespace

HDRT_REGISTER_KERNELS(LayerNormKernels, "cuda", CudaLayerNorm);

} // namespace hdrt
