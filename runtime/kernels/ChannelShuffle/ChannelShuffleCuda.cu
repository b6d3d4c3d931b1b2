//===- ChannelShuffleCuda.cu - the channel shuffle on the GPU -------------===//

#include "ChannelShuffleKernels.h"

#include "cuda/Check.h"
#include "cuda/CudaDevice.h"
#include "cuda/Launch.cuh"

namespace hdrt {

namespace {

using cuda::blocksFor;
using cuda::kThreads;

__global__ void shuffleKernel(int64_t n, int64_t c, int64_t hw, int64_t groups,
                              const float *in, float *out) {
  int64_t perGroup = c / groups;
  FOR_EACH(e, n * c * hw) {
    int64_t i = e % hw, o = (e / hw) % c, s = e / (c * hw);
    int64_t from = (o % groups) * perGroup + o / groups;
    out[e] = in[(s * c + from) * hw + i];
  }
}

class CudaChannelShuffle final : public ChannelShuffleKernels {
public:
  explicit CudaChannelShuffle(Device &d)
      : stream_(cuda::CudaDevice::of(d).stream()) {}

  void shuffle(int64_t n, int64_t c, int64_t hw, int64_t groups,
               const float *in, float *out) override {
    if (n * c * hw > 0)
      shuffleKernel<<<blocksFor(n * c * hw), kThreads, 0, stream_>>>(
          n, c, hw, groups, in, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

private:
  cudaStream_t stream_;
};

} // namespace

HDRT_REGISTER_KERNELS(ChannelShuffleKernels, "cuda", CudaChannelShuffle);

} // namespace hdrt
