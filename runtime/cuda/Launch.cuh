//===- Launch.cuh - launch and reduction helpers ---------------*- CUDA -*-===//
//
// What every kernel file shares: the block size, a grid that covers a count
// (capped, with grid-stride loops doing the rest), and a block-wide sum.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_CUDA_LAUNCH_CUH
#define HDRT_CUDA_LAUNCH_CUH

#include <cstdint>

namespace hdrt::cuda {

constexpr int kThreads = 256;

inline unsigned blocksFor(int64_t count) {
  int64_t b = (count + kThreads - 1) / kThreads;
  return unsigned(b < 1 ? 1 : (b > 65535 * 32 ? 65535 * 32 : b));
}

/// A grid-stride loop over [0, count).
#define FOR_EACH(i, count)                                                     \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;             \
       i < (count); i += int64_t(gridDim.x) * blockDim.x)

/// Sums `value` over the block; thread 0 gets the total.
template <typename T> __device__ T blockSum(T value) {
  __shared__ T partial[kThreads];
  partial[threadIdx.x] = value;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  T total = partial[0];
  __syncthreads(); // partial is reused by the next call
  return total;
}

} // namespace hdrt::cuda

#endif // HDRT_CUDA_LAUNCH_CUH
