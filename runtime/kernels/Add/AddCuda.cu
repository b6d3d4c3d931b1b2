//===- AddCuda.cu - the sum of two tiles on the GPU -----------------------===//

#include "AddKernels.h"

#include "cuda/Check.h"
#include "cuda/CudaDevice.h"
#include "cuda/Launch.cuh"
#include "kernels/Relu/ReluKernels.h"

namespace hdrt {

namespace {

using cuda::blocksFor;
using cuda::kThreads;

template <bool Relu>
__global__ void addKernel(int64_t count, const float *a, const float *b,
                          float *out) {
  FOR_EACH(i, count) {
    float y = a[i] + b[i];
    out[i] = Relu ? relu(y) : y;
  }
}

class CudaAdd final : public AddKernels {
public:
  explicit CudaAdd(Device &d) : stream_(cuda::CudaDevice::of(d).stream()) {}

  void forward(int64_t count, const float *a, const float *b, float *out,
               bool applyRelu) override {
    if (count <= 0)
      return;
    if (applyRelu)
      addKernel<true>
          <<<blocksFor(count), kThreads, 0, stream_>>>(count, a, b, out);
    else
      addKernel<false>
          <<<blocksFor(count), kThreads, 0, stream_>>>(count, a, b, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

private:
  cudaStream_t stream_;
};

} // namespace

HDRT_REGISTER_KERNELS(AddKernels, "cuda", CudaAdd);

} // namespace hdrt
