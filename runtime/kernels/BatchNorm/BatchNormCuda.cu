//===- BatchNormCuda.cu - batch norm on the GPU ---------------------------===//
//
// NCHW tiles. A channel's n * hw values are cut into slices of about
// kSliceValues so that a small channel count still fills the GPU: block
// (channel, slice) writes its slice's two sums into scratch, and a second
// kernel adds the slices in order, so that the result does not depend on
// scheduling. Sums are in double, as the CPU loops'. Index arithmetic is
// 32-bit where the tile allows it (below 2^31 elements): a 64-bit division
// per element costs more than the element's memory traffic.
//
//===----------------------------------------------------------------------===//

#include "BatchNormKernels.h"

#include "cuda/Check.h"
#include "cuda/CudaDevice.h"
#include "cuda/Launch.cuh"
#include "kernels/Relu/ReluKernels.h"

#include <climits>
#include <cstdint>

namespace hdrt {

namespace {

using cuda::blocksFor;
using cuda::kThreads;

constexpr int64_t kSliceValues = 4096;
constexpr int64_t kMaxSlices = 1024;

int64_t slicesFor(int64_t n, int64_t hw) {
  int64_t slices = (n * hw + kSliceValues - 1) / kSliceValues;
  return slices < 1 ? 1 : (slices > kMaxSlices ? kMaxSlices : slices);
}

/// Forward: the sums of x and x^2. Backward: of dy and dy * xhat.
/// partials[slice * 2c + ch] and partials[slice * 2c + c + ch].
template <typename Index, bool Backward>
__global__ void sliceSumsKernel(Index n, Index c, Index hw, Index perSlice,
                                const float *in, const float *dOut,
                                const float *mean, const float *invStd,
                                double *partials) {
  Index ch = blockIdx.x, slice = blockIdx.y;
  Index begin = slice * perSlice, end = min(begin + perSlice, n * hw);
  double a = 0, b = 0;
  for (Index j = begin + threadIdx.x; j < end; j += blockDim.x) {
    Index at = ((j / hw) * c + ch) * hw + j % hw;
    if (Backward) {
      a += dOut[at];
      b += double(dOut[at]) * (in[at] - mean[ch]) * invStd[ch];
    } else {
      double x = in[at];
      a += x;
      b += x * x;
    }
  }
  a = cuda::blockSum(a);
  b = cuda::blockSum(b);
  if (threadIdx.x == 0) {
    partials[slice * 2 * c + ch] = a;
    partials[slice * 2 * c + c + ch] = b;
  }
}

__global__ void combineKernel(int64_t c, int64_t slices, const double *partials,
                              double *sums) {
  FOR_EACH(i, 2 * c) {
    double total = 0;
    for (int64_t s = 0; s < slices; ++s)
      total += partials[s * 2 * c + i];
    sums[i] = total;
  }
}

__global__ void statisticsKernel(int64_t c, int64_t count, double eps,
                                 const double *sums, float *mean,
                                 float *invStd) {
  FOR_EACH(ch, c)
  meanAndInvStd(sums[ch], sums[c + ch], count, eps, mean[ch], invStd[ch]);
}

__global__ void runningUpdateKernel(int64_t c, int64_t count, double momentum,
                                    const double *sums, float *runningMean,
                                    float *runningVar) {
  FOR_EACH(ch, c)
  batchNormRunning(sums[ch], sums[c + ch], count, momentum, runningMean[ch],
                   runningVar[ch]);
}

__global__ void runningInvStdKernel(int64_t c, double eps, const float *var,
                                    float *invStd) {
  FOR_EACH(ch, c) invStd[ch] = batchNormInvStd(var[ch], eps);
}

/// A grid-stride loop over [0, total) in `Index` arithmetic (total below
/// 2^31 for a 32-bit index: the stride's addition cannot wrap).
#define FOR_EACH_INDEX(Index, i, total)                                        \
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < (total);    \
       i += Index(gridDim.x) * blockDim.x)

template <typename Index, bool Relu>
__global__ void forwardKernel(Index total, Index c, Index hw, const float *in,
                              const float *mean, const float *invStd,
                              const float *scale, const float *shift,
                              float *out) {
  FOR_EACH_INDEX(Index, i, total) {
    Index ch = (i / hw) % c;
    float y =
        batchNormNormalize(scale[ch] * invStd[ch], in[i], mean[ch], shift[ch]);
    out[i] = Relu ? relu(y) : y;
  }
}

__global__ void paramGradsKernel(int64_t c, const double *sums, float *dScale,
                                 float *dShift) {
  FOR_EACH(ch, c) {
    dScale[ch] = float(sums[c + ch]);
    dShift[ch] = float(sums[ch]);
  }
}

template <typename Index>
__global__ void backwardDataKernel(Index total, Index c, Index hw,
                                   int64_t count, const float *in,
                                   const float *dOut, const float *mean,
                                   const float *invStd, const float *scale,
                                   const double *sums, float *dIn) {
  FOR_EACH_INDEX(Index, i, total) {
    Index ch = (i / hw) % c;
    BatchNormGradFactors grad(scale[ch], invStd[ch], sums[ch], sums[c + ch],
                              count);
    dIn[i] = grad(dOut[i], in[i], mean[ch]);
  }
}

/// Whether a tile of `total` elements takes 32-bit index arithmetic.
bool small(int64_t total) { return total <= int64_t(INT32_MAX); }

class CudaBatchNorm final : public BatchNormKernels {
public:
  explicit CudaBatchNorm(Device &d)
      : stream_(cuda::CudaDevice::of(d).stream()),
        partials_(cuda::CudaDevice::of(d).memoryCounter()) {}

  void partialSums(int64_t n, int64_t c, int64_t hw, int64_t block,
                   const float *in, double *sums) override {
    cuda::CudaDevice::requirePlainLayout(block);
    sliceSums<false>(n, c, hw, in, nullptr, nullptr, nullptr, sums);
  }

  void statistics(int64_t c, int64_t count, double eps, const double *sums,
                  float *mean, float *invStd) override {
    if (c > 0)
      statisticsKernel<<<blocksFor(c), kThreads, 0, stream_>>>(
          c, count, eps, sums, mean, invStd);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  void runningUpdate(int64_t c, int64_t count, double momentum,
                     const double *sums, float *runningMean,
                     float *runningVar) override {
    if (c > 0)
      runningUpdateKernel<<<blocksFor(c), kThreads, 0, stream_>>>(
          c, count, momentum, sums, runningMean, runningVar);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  void runningInvStd(int64_t c, double eps, const float *var,
                     float *invStd) override {
    if (c > 0)
      runningInvStdKernel<<<blocksFor(c), kThreads, 0, stream_>>>(c, eps, var,
                                                                  invStd);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  void forward(int64_t n, int64_t c, int64_t hw, int64_t block, const float *in,
               const float *mean, const float *invStd, const float *scale,
               const float *shift, float *out, bool applyRelu) override {
    cuda::CudaDevice::requirePlainLayout(block);
    int64_t total = n * c * hw;
    if (total <= 0)
      return;
    auto launch = [&](auto kernel, auto index) {
      using Index = decltype(index);
      kernel<<<blocksFor(total), kThreads, 0, stream_>>>(
          Index(total), Index(c), Index(hw), in, mean, invStd, scale, shift,
          out);
    };
    if (small(total))
      launch(applyRelu ? forwardKernel<uint32_t, true>
                       : forwardKernel<uint32_t, false>,
             uint32_t());
    else
      launch(applyRelu ? forwardKernel<int64_t, true>
                       : forwardKernel<int64_t, false>,
             int64_t());
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  void backwardPartialSums(int64_t n, int64_t c, int64_t hw, int64_t block,
                           const float *in, const float *dOut,
                           const float *mean, const float *invStd,
                           double *sums) override {
    cuda::CudaDevice::requirePlainLayout(block);
    sliceSums<true>(n, c, hw, in, dOut, mean, invStd, sums);
  }

  void paramGrads(int64_t c, const double *sums, float *dScale,
                  float *dShift) override {
    if (c > 0)
      paramGradsKernel<<<blocksFor(c), kThreads, 0, stream_>>>(c, sums, dScale,
                                                               dShift);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  void backwardData(int64_t n, int64_t c, int64_t hw, int64_t block,
                    int64_t count, const float *in, const float *dOut,
                    const float *mean, const float *invStd, const float *scale,
                    const double *sums, float *dIn) override {
    cuda::CudaDevice::requirePlainLayout(block);
    int64_t total = n * c * hw;
    if (total > 0 && small(total))
      backwardDataKernel<uint32_t><<<blocksFor(total), kThreads, 0, stream_>>>(
          uint32_t(total), uint32_t(c), uint32_t(hw), count, in, dOut, mean,
          invStd, scale, sums, dIn);
    else if (total > 0)
      backwardDataKernel<int64_t><<<blocksFor(total), kThreads, 0, stream_>>>(
          total, c, hw, count, in, dOut, mean, invStd, scale, sums, dIn);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

private:
  /// Both sums: one slice writes straight into `sums`.
  template <bool Backward>
  void sliceSums(int64_t n, int64_t c, int64_t hw, const float *in,
                 const float *dOut, const float *mean, const float *invStd,
                 double *sums) {
    if (c <= 0)
      return;
    int64_t slices = slicesFor(n, hw);
    int64_t perSlice = (n * hw + slices - 1) / slices;
    double *out = slices == 1
                      ? sums
                      : static_cast<double *>(partials_.get(
                            size_t(slices * 2 * c) * sizeof(double), stream_));
    dim3 grid{unsigned(c), unsigned(slices), 1};
    if (small(n * c * hw))
      sliceSumsKernel<uint32_t, Backward><<<grid, kThreads, 0, stream_>>>(
          uint32_t(n), uint32_t(c), uint32_t(hw), uint32_t(perSlice), in, dOut,
          mean, invStd, out);
    else
      sliceSumsKernel<int64_t, Backward><<<grid, kThreads, 0, stream_>>>(
          n, c, hw, perSlice, in, dOut, mean, invStd, out);
    if (slices > 1)
      combineKernel<<<blocksFor(2 * c), kThreads, 0, stream_>>>(c, slices, out,
                                                                sums);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  cudaStream_t stream_;
  cuda::Scratch partials_; // the slices' sums
};

} // namespace

HDRT_REGISTER_KERNELS(BatchNormKernels, "cuda", CudaBatchNorm);

} // namespace hdrt
