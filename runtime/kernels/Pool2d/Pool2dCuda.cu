//===- Pool2dCuda.cu - pooling on the GPU ---------------------------------===//
//
// Windows over an input box with per-side padding on NCHW tiles. The
// forward runs a thread per output element and, for max pooling, leaves in
// the workspace where each window's maximum is. The backward runs a thread
// per input element that gathers the gradients of the windows covering it,
// in a fixed order: no atomics, no zeroing pass, and the same sums on
// every run.
//
//===----------------------------------------------------------------------===//

#include "Pool2dKernels.h"

#include "cuda/Check.h"
#include "cuda/CudaDevice.h"
#include "cuda/DeviceKernels.h"
#include "cuda/Launch.cuh"

#include <climits>

namespace hdrt {

namespace {

using cuda::blocksFor;
using cuda::kThreads;

__global__ void forwardKernel(PoolGeometry g, const float *in, float *out,
                              int32_t *argmax) {
  FOR_EACH(i, g.outputs())
  poolForwardAt(g, i, in, out, argmax);
}

__global__ void backwardKernel(PoolGeometry g, const float *dOut,
                               const int32_t *argmax, float *dIn) {
  FOR_EACH(i, g.inputs())
  dIn[i] = poolGradientAt(g, i, dOut, argmax);
}

class CudaPool2d final : public Pool2dKernels {
public:
  explicit CudaPool2d(Device &d) : stream_(cuda::CudaDevice::of(d).stream()) {}

  /// Max pooling: each output's maximum's place in its input plane.
  int64_t workspaceBytes(const Pool2dShape &s) override {
    PoolGeometry g = geometryOf(s);
    return s.max ? g.outputs() * int64_t(sizeof(int32_t)) : 0;
  }

  void forward(const Pool2dShape &s, const float *in, float *out,
               void *workspace) override {
    cuda::CudaDevice::requirePlainLayouts(s.layouts);
    PoolGeometry g = geometryOf(s);
    requirePlaces(g, workspace);
    if (g.outputs() > 0)
      forwardKernel<<<blocksFor(g.outputs()), kThreads, 0, stream_>>>(
          g, in, out, static_cast<int32_t *>(workspace));
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  void backward(const Pool2dShape &s, const float *, const float *dOut,
                float *dIn, const void *workspace) override {
    cuda::CudaDevice::requirePlainLayouts(s.layouts);
    PoolGeometry g = geometryOf(s);
    requirePlaces(g, workspace);
    if (g.inputs() > 0)
      backwardKernel<<<blocksFor(g.inputs()), kThreads, 0, stream_>>>(
          g, dOut, static_cast<const int32_t *>(workspace), dIn);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

private:
  /// Max pooling's places are int32 offsets in a plane: the executor gives
  /// the workspace that workspaceBytes asked for.
  static void requirePlaces(const PoolGeometry &g, const void *workspace) {
    if (g.max && !workspace)
      throw DeviceError("max pooling on the GPU needs its workspace");
    if (g.h * g.w > INT32_MAX)
      throw DeviceError("a pooling plane of more than 2^31 elements");
  }

  cudaStream_t stream_;
};

} // namespace

HDRT_REGISTER_KERNELS(Pool2dKernels, "cuda", CudaPool2d);

} // namespace hdrt
