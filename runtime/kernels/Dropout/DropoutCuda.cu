//===- DropoutCuda.cu - dropout on the GPU --------------------------------===//

#include "DropoutKernels.h"

#include "cuda/Check.h"
#include "cuda/CudaDevice.h"
#include "cuda/Launch.cuh"

namespace hdrt {

namespace {

using cuda::blocksFor;
using cuda::kThreads;

__global__ void dropoutKernel(TileRegion tile, int64_t volume, uint64_t seed,
                              uint64_t stream, float ratio, const float *in,
                              float *out) {
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
    out[i] = dropoutElement(in[i], ratio, keep, seed, stream, uint64_t(global));
  }
}

class CudaDropout final : public DropoutKernels {
public:
  explicit CudaDropout(Device &d) : stream_(cuda::CudaDevice::of(d).stream()) {}

  void apply(const TileRegion &tile, uint64_t seed, uint64_t stream,
             float ratio, const float *in, float *out) override {
    int64_t volume = tile.volume();
    if (volume > 0)
      dropoutKernel<<<blocksFor(volume), kThreads, 0, stream_>>>(
          tile, volume, seed, stream, ratio, in, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

private:
  cudaStream_t stream_;
};

} // namespace

HDRT_REGISTER_KERNELS(DropoutKernels, "cuda", CudaDropout);

} // namespace hdrt
