//===- DeviceKernels.h - the GPU device's own copies ------------*- C++ -*-===//
//
// The kernels behind CudaDevice's data movement, which kernel sets use too
// (a convolution's zero-padded input copy): each launches on `stream` and
// returns without waiting.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_CUDA_DEVICEKERNELS_H
#define HDRT_CUDA_DEVICEKERNELS_H

#include "hdrt/Box.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace hdrt::cuda {

void fill(cudaStream_t s, float *dst, int64_t count, float value);
/// As hdrt::copyRegion (Box.h); with `add`, as addRegion.
void copyRegion(cudaStream_t s, const float *src, const Box &srcBox, float *dst,
                const Box &dstBox, const Box &region, bool add);
/// Sets *flag (device int) to 1 when any element is NaN or infinite.
void findNonFinite(cudaStream_t s, const float *data, int64_t count, int *flag);

} // namespace hdrt::cuda

#endif // HDRT_CUDA_DEVICEKERNELS_H
