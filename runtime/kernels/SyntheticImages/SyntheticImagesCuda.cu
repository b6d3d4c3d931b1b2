//===- SyntheticImagesCuda.cu - synthetic images made on the GPU ----------===//

#include "SyntheticImagesKernels.h"

#include "cuda/Check.h"
#include "cuda/CudaDevice.h"
#include "cuda/Launch.cuh"

namespace hdrt {

namespace {

using cuda::blocksFor;
using cuda::kThreads;

/// The box's extents and origin, and the image's, by value.
struct ImageBox {
  int64_t lo[4], extent[4];
  int64_t h, w, sampleVolume;
};

__global__ void imagesKernel(SyntheticBatch batch, ImageBox b, int64_t volume,
                             float *out) {
  FOR_EACH(i, volume) {
    int64_t rest = i, at[4];
    for (int d = 3; d >= 0; --d) {
      at[d] = b.lo[d] + rest % b.extent[d];
      rest /= b.extent[d];
    }
    int64_t n = at[0];
    int64_t offset = (at[1] * b.h + at[2]) * b.w + at[3];
    out[i] = syntheticPixel(batch, syntheticLabel(batch, n), n, b.sampleVolume,
                            offset);
  }
}

class CudaSyntheticImages final : public SyntheticImagesKernels {
public:
  explicit CudaSyntheticImages(Device &d)
      : stream_(cuda::CudaDevice::of(d).stream()) {}

  void images(const SyntheticBatch &batch, const int64_t *shape, const Box &box,
              float *out) override {
    ImageBox b;
    for (int d = 0; d < 4; ++d) { // dims past the box's rank: one index
      b.lo[d] = d < box.rank ? box.lo[d] : 0;
      b.extent[d] = d < box.rank ? box.hi[d] - box.lo[d] : 1;
    }
    b.h = shape[2];
    b.w = shape[3];
    b.sampleVolume = shape[1] * shape[2] * shape[3];
    int64_t volume = box.volume();
    if (volume > 0)
      imagesKernel<<<blocksFor(volume), kThreads, 0, stream_>>>(batch, b,
                                                                volume, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

private:
  cudaStream_t stream_;
};

} // namespace

HDRT_REGISTER_KERNELS(SyntheticImagesKernels, "cuda", CudaSyntheticImages);

} // namespace hdrt
