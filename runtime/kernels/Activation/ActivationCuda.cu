//===- ActivationCuda.cu - hd.activation on the GPU -----------------------===//

#include "ActivationKernels.h"

#include "cuda/Check.h"
#include "cuda/CudaDevice.h"
#include "cuda/Launch.cuh"

namespace hdrt {

namespace {

using cuda::blocksFor;
using cuda::kThreads;

__global__ void forwardKernel(Activation f, int64_t count, const float *in,
                              float *out) {
  FOR_EACH(i, count) out[i] = f.forward(in[i]);
}

__global__ void backwardKernel(Activation f, int64_t count, const float *in,
                               const float *dOut, float *dIn) {
  FOR_EACH(i, count) dIn[i] = f.backward(in[i], dOut[i]);
}

class CudaActivation final : public ActivationKernels {
public:
  explicit CudaActivation(Device &d)
      : stream_(cuda::CudaDevice::of(d).stream()) {}

  void forward(const Activation &f, int64_t count, const float *in,
               float *out) override {
    if (count > 0)
      forwardKernel<<<blocksFor(count), kThreads, 0, stream_>>>(f, count, in,
                                                                out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  void backward(const Activation &f, int64_t count, const float *in,
                const float *dOut, float *dIn) override {
    if (count > 0)
      backwardKernel<<<blocksFor(count), kThreads, 0, stream_>>>(f, count, in,
                                                                 dOut, dIn);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

private:
  cudaStream_t stream_;
};

} // namespace

HDRT_REGISTER_KERNELS(ActivationKernels, "cuda", CudaActivation);

} // namespace hdrt
