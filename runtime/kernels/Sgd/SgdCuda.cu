//===- SgdCuda.cu - the optimizer's update on the GPU ---------------------===//
//
// The executor waits for each parameter's gradient sum first
// (Device::waitGradients), which orders this after it on the stream.
//
//===----------------------------------------------------------------------===//

#include "SgdKernels.h"

#include "cuda/Check.h"
#include "cuda/CudaDevice.h"
#include "cuda/Launch.cuh"

namespace hdrt {

namespace {

using cuda::blocksFor;
using cuda::kThreads;

__global__ void sgdKernel(int64_t count, float lr, float momentum,
                          float weightDecay, bool nesterov, float *param,
                          const float *grad, float *velocity) {
  FOR_EACH(i, count)
  sgdStep(lr, momentum, weightDecay, nesterov, param[i], grad[i], velocity[i]);
}

class CudaSgd final : public SgdKernels {
public:
  explicit CudaSgd(Device &d) : stream_(cuda::CudaDevice::of(d).stream()) {}

  void update(int64_t count, float lr, float momentum, float weightDecay,
              bool nesterov, float *param, const float *grad,
              float *velocity) override {
    if (count > 0)
      sgdKernel<<<blocksFor(count), kThreads, 0, stream_>>>(
          count, lr, momentum, weightDecay, nesterov, param, grad, velocity);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

private:
  cudaStream_t stream_;
};

} // namespace

HDRT_REGISTER_KERNELS(SgdKernels, "cuda", CudaSgd);

} // namespace hdrt
