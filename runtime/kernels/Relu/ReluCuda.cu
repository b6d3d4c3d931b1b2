//===- ReluCuda.cu - the ReLU on the GPU ----------------------------------===//

#include "ReluKernels.h"

#include "cuda/Check.h"
#include "cuda/CudaDevice.h"
#include "cuda/Launch.cuh"

namespace hdrt {

namespace {

using cuda::blocksFor;
using cuda::kThreads;

__global__ void forwardKernel(int64_t count, const float *in, float *out) {
  FOR_EACH(i, count) out[i] = relu(in[i]);
}

__global__ void backwardKernel(int64_t count, const float *x, const float *dOut,
                               float *dIn) {
  FOR_EACH(i, count) dIn[i] = x[i] <= 0.f ? 0.f : dOut[i];
}

class CudaRelu final : public ReluKernels {
public:
  explicit CudaRelu(Device &d) : stream_(cuda::CudaDevice::of(d).stream()) {}

  void forward(int64_t count, const float *in, float *out) override {
    if (count > 0)
      forwardKernel<<<blocksFor(count), kThreads, 0, stream_>>>(count, in, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  void backward(int64_t count, const float *x, const float *dOut,
                float *dIn) override {
    if (count > 0)
      backwardKernel<<<blocksFor(count), kThreads, 0, stream_>>>(count, x, dOut,
                                                                 dIn);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

private:
  cudaStream_t stream_;
};

} // namespace

HDRT_REGISTER_KERNELS(ReluKernels, "cuda", CudaRelu);

} // namespace hdrt
