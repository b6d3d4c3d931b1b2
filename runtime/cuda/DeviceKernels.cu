//===- DeviceKernels.cu - the GPU device's own copies ---------------------===//

#include "DeviceKernels.h"
#include "Launch.cuh"

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

} // namespace

void fill(cudaStream_t s, float *dst, int64_t count, float value) {
  if (count > 0)
    fillKernel<<<blocksFor(count), kThreads, 0, s>>>(dst, count, value);
}

void copyRegion(cudaStream_t s, const float *src, const Box &srcBox, float *dst,
                const Box &dstBox, const Box &region, bool add) {
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

} // namespace hdrt::cuda
