//===- PerChannelCuda.cu - broadcast and sum along channels on the GPU ----===//

#include "PerChannelKernels.h"

#include "cuda/Check.h"
#include "cuda/CudaDevice.h"
#include "cuda/Launch.cuh"

namespace hdrt {

namespace {

using cuda::blocksFor;
using cuda::kThreads;

__global__ void fillKernel(int64_t total, int64_t c, int64_t hw,
                           const float *perChannel, float *out) {
  FOR_EACH(i, total) out[i] = perChannel ? perChannel[(i / hw) % c] : 0.0f;
}

/// One block per channel.
__global__ void sumKernel(int64_t n, int64_t c, int64_t hw, const float *in,
                          float *out) {
  int64_t ch = blockIdx.x;
  double sum = 0;
  for (int64_t j = threadIdx.x; j < n * hw; j += blockDim.x)
    sum += in[((j / hw) * c + ch) * hw + j % hw];
  sum = cuda::blockSum(sum);
  if (threadIdx.x == 0)
    out[ch] = float(sum);
}

class CudaPerChannel final : public PerChannelKernels {
public:
  explicit CudaPerChannel(Device &d)
      : stream_(cuda::CudaDevice::of(d).stream()) {}

  void fill(int64_t n, int64_t c, int64_t hw, const float *perChannel,
            float *out) override {
    int64_t total = n * c * hw;
    if (total > 0)
      fillKernel<<<blocksFor(total), kThreads, 0, stream_>>>(total, c, hw,
                                                             perChannel, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  void sum(int64_t n, int64_t c, int64_t hw, const float *in,
           float *out) override {
    if (c > 0)
      sumKernel<<<unsigned(c), kThreads, 0, stream_>>>(n, c, hw, in, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

private:
  cudaStream_t stream_;
};

} // namespace

HDRT_REGISTER_KERNELS(PerChannelKernels, "cuda", CudaPerChannel);

} // namespace hdrt
