//===- BinaryCuda.cu - hd.binary on the GPU -------------------------------===//
//
// A broadcast operand's gradient sums each row in double, one block per
// row, as the CPU does.
//
//===----------------------------------------------------------------------===//

#include "BinaryKernels.h"

#include "cuda/Check.h"
#include "cuda/CudaDevice.h"
#include "cuda/Launch.cuh"

namespace hdrt {

namespace {

using cuda::blocksFor;
using cuda::kThreads;

__global__ void forwardKernel(BinaryFunction f, int64_t count, int64_t cols,
                              bool broadcast, const float *a, const float *b,
                              float *out) {
  FOR_EACH(i, count) out[i] = applyBinary(f, a[i], b[broadcast ? i / cols : i]);
}

__global__ void backwardKernel(BinaryFunction f, int64_t count, int64_t cols,
                               bool broadcast, const float *a, const float *b,
                               const float *dOut, float *dA, float *dB) {
  FOR_EACH(i, count) {
    float y = b[broadcast ? i / cols : i];
    if (dA)
      dA[i] = binaryGradLhs(f, y, dOut[i]);
    if (dB && !broadcast)
      dB[i] = binaryGradRhs(f, a[i], y, dOut[i]);
  }
}

/// One block per row: dB[r] = the row's sum of the rhs gradients.
__global__ void rowSumsKernel(BinaryFunction f, int64_t cols, const float *a,
                              const float *b, const float *dOut, float *dB) {
  int64_t row = blockIdx.x;
  double sum = 0;
  for (int64_t i = threadIdx.x; i < cols; i += blockDim.x)
    sum += binaryGradRhs(f, a[row * cols + i], b[row], dOut[row * cols + i]);
  sum = cuda::blockSum(sum);
  if (threadIdx.x == 0)
    dB[row] = float(sum);
}

class CudaBinary final : public BinaryKernels {
public:
  explicit CudaBinary(Device &d) : stream_(cuda::CudaDevice::of(d).stream()) {}

  void forward(BinaryFunction f, int64_t rows, int64_t cols, bool broadcast,
               const float *a, const float *b, float *out) override {
    int64_t count = rows * cols;
    if (count > 0)
      forwardKernel<<<blocksFor(count), kThreads, 0, stream_>>>(
          f, count, cols, broadcast, a, b, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  void backward(BinaryFunction f, int64_t rows, int64_t cols, bool broadcast,
                const float *a, const float *b, const float *dOut, float *dA,
                float *dB) override {
    int64_t count = rows * cols;
    if (count <= 0)
      return;
    if (dA || (dB && !broadcast))
      backwardKernel<<<blocksFor(count), kThreads, 0, stream_>>>(
          f, count, cols, broadcast, a, b, dOut, dA, dB);
    // Rows beyond a grid's reach do not occur: rows = samples x channels.
    if (dB && broadcast)
      rowSumsKernel<<<unsigned(rows), kThreads, 0, stream_>>>(f, cols, a, b,
                                                              dOut, dB);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

private:
  cudaStream_t stream_;
};

} // namespace

HDRT_REGISTER_KERNELS(BinaryKernels, "cuda", CudaBinary);

} // namespace hdrt
