//===- LinearCuda.cu - fully-connected layers on cuBLAS -------------------===//
//
// Row-major [n, f] x [k, f]^T is column-major out^T = W^T-view * in^T; the
// bias and its gradient are kernels of our own.
//
//===----------------------------------------------------------------------===//

#include "LinearKernels.h"

#include "cuda/Check.h"
#include "cuda/CudaDevice.h"
#include "cuda/Launch.cuh"

namespace hdrt {

namespace {

using cuda::blocksFor;
using cuda::kThreads;

/// out[r, j] += bias[j] for an R x K row-major matrix.
__global__ void addRowBiasKernel(int64_t total, int64_t k, const float *bias,
                                 float *out) {
  FOR_EACH(i, total) out[i] += bias[i % k];
}

/// dBias[j] = sum over rows of dOut[r, j] (overwritten).
__global__ void sumRowsKernel(int64_t rows, int64_t k, const float *dOut,
                              float *dBias) {
  FOR_EACH(j, k) {
    double sum = 0;
    for (int64_t r = 0; r < rows; ++r)
      sum += dOut[r * k + j];
    dBias[j] = float(sum);
  }
}

class CudaLinear final : public LinearKernels {
public:
  explicit CudaLinear(Device &d)
      : stream_(cuda::CudaDevice::of(d).stream()),
        blas_(cuda::CudaDevice::of(d).blas()) {}

  void forward(int64_t n, int64_t f, int64_t k, const float *in, const float *w,
               const float *bias, float *out) override {
    const float one = 1, zero = 0;
    HDRT_CUDA_CHECK(cublasSgemm(blas_, CUBLAS_OP_T, CUBLAS_OP_N, int(k), int(n),
                                int(f), &one, w, int(f), in, int(f), &zero, out,
                                int(k)));
    if (bias && n * k > 0) {
      addRowBiasKernel<<<blocksFor(n * k), kThreads, 0, stream_>>>(n * k, k,
                                                                   bias, out);
      HDRT_CUDA_CHECK(cudaGetLastError());
    }
  }

  void backwardData(int64_t n, int64_t f, int64_t k, const float *dOut,
                    const float *w, float *dIn) override {
    const float one = 1, zero = 0;
    HDRT_CUDA_CHECK(cublasSgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_N, int(f), int(n),
                                int(k), &one, w, int(f), dOut, int(k), &zero,
                                dIn, int(f)));
  }

  void backwardWeights(int64_t n, int64_t f, int64_t k, const float *in,
                       const float *dOut, float *dW, float *dBias) override {
    const float one = 1, zero = 0;
    HDRT_CUDA_CHECK(cublasSgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_T, int(f), int(k),
                                int(n), &one, in, int(f), dOut, int(k), &zero,
                                dW, int(f)));
    if (dBias && k > 0) {
      sumRowsKernel<<<blocksFor(k), kThreads, 0, stream_>>>(n, k, dOut, dBias);
      HDRT_CUDA_CHECK(cudaGetLastError());
    }
  }

private:
  cudaStream_t stream_;
  cublasHandle_t blas_;
};

} // namespace

HDRT_REGISTER_KERNELS(LinearKernels, "cuda", CudaLinear);

} // namespace hdrt
