//===- BatchNormCuda.cu - batch norm on the GPU ---------------------------===//
//
// NCHW tiles. A channel's n * hw values are cut into slices of about
// kSliceValues so that a small channel count still fills the GPU: block
// (channel, slice) writes its slice's two sums into scratch, and a second
// kernel adds the slices in order, so that the result does not depend on
// scheduling. Sums are in double, as the CPU loops'.
//
//===----------------------------------------------------------------------===//

#include "BatchNormKernels.h"

#include "cuda/Check.h"
#include "cuda/CudaDevice.h"
#include "cuda/Launch.cuh"
#include "kernels/Relu/ReluKernels.h"

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
template <bool Backward>
__global__ void sliceSumsKernel(int64_t n, int64_t c, int64_t hw,
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

template <bool Relu>
__global__ void forwardKernel(int64_t total, int64_t c, int64_t hw,
                              const float *in, const float *mean,
                              const float *invStd, const float *scale,
                              const float *shift, float *out) {
  FOR_EACH(i, total) {
    int64_t ch = (i / hw) % c;
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

__global__ void backwardDataKernel(int64_t total, int64_t c, int64_t hw,
                                   int64_t count, const float *in,
                                   const float *dOut, const float *mean,
                                   const float *invStd, const float *scale,
                                   const double *sums, float *dIn) {
  FOR_EACH(i, total) {
    int64_t ch = (i / hw) % c;
    BatchNormGradFactors grad(scale[ch], invStd[ch], sums[ch], sums[c + ch],
                              count);
    dIn[i] = grad(dOut[i], in[i], mean[ch]);
  }
}

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
    if (applyRelu)
      forwardKernel<true><<<blocksFor(total), kThreads, 0, stream_>>>(
          total, c, hw, in, mean, invStd, scale, shift, out);
    else
      forwardKernel<false><<<blocksFor(total), kThreads, 0, stream_>>>(
          total, c, hw, in, mean, invStd, scale, shift, out);
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
    if (total > 0)
      backwardDataKernel<<<blocksFor(total), kThreads, 0, stream_>>>(
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
    double *out = slices == 1 ? sums
                              : static_cast<double *>(partials_.get(
                                    size_t(slices * 2 * c) * sizeof(double),
                                    stream_));
    sliceSumsKernel<Backward>
        <<<dim3(unsigned(c), unsigned(slices)), kThreads, 0, stream_>>>(
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
