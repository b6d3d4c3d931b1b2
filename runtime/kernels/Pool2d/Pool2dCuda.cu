//===- Pool2dCuda.cu - pooling on the GPU ---------------------------------===//
//
// Windows over an input box with per-side padding, one thread per output
// element, on NCHW tiles. The backward finds each window's maximum again
// (no workspace) and adds its gradients with atomics.
//
//===----------------------------------------------------------------------===//

#include "Pool2dKernels.h"

#include "cuda/Check.h"
#include "cuda/CudaDevice.h"
#include "cuda/DeviceKernels.h"
#include "cuda/Launch.cuh"

#include <cfloat>

namespace hdrt {

namespace {

using cuda::blocksFor;
using cuda::kThreads;

struct PoolGeometry {
  int64_t n, c, h, w, outH, outW, kh, kw, sh, sw, pt, pl;
  bool max, countIncludePad;
};

PoolGeometry geometryOf(const Pool2dShape &p) {
  const Window2d &w = p.window;
  return {w.n,       w.c,
          w.h,       w.w,
          w.outH(),  w.outW(),
          w.kh,      w.kw,
          w.strideH, w.strideW,
          w.padTop,  w.padLeft,
          p.max,     p.countIncludePad};
}

/// The window of output (y, x) clipped to the input box: rows [y0, y1),
/// columns [x0, x1).
__device__ void windowOf(const PoolGeometry &g, int64_t y, int64_t x,
                         int64_t &y0, int64_t &y1, int64_t &x0, int64_t &x1) {
  int64_t top = y * g.sh - g.pt, left = x * g.sw - g.pl;
  y0 = max(top, int64_t(0));
  y1 = min(top + g.kh, g.h);
  x0 = max(left, int64_t(0));
  x1 = min(left + g.kw, g.w);
}

__global__ void forwardKernel(PoolGeometry g, const float *in, float *out) {
  int64_t total = g.n * g.c * g.outH * g.outW;
  FOR_EACH(i, total) {
    int64_t x = i % g.outW, y = (i / g.outW) % g.outH,
            plane = i / (g.outH * g.outW);
    const float *src = in + plane * g.h * g.w;
    int64_t y0, y1, x0, x1;
    windowOf(g, y, x, y0, y1, x0, x1);
    if (g.max) {
      // A NaN in the window wins (fmaxf would drop it): a diverging step
      // must stay visible to the loss and the finiteness check.
      float best = -FLT_MAX;
      for (int64_t r = y0; r < y1; ++r)
        for (int64_t q = x0; q < x1; ++q) {
          float v = src[r * g.w + q];
          best = (v > best || v != v) ? v : best;
        }
      out[i] = best;
    } else {
      double sum = 0;
      for (int64_t r = y0; r < y1; ++r)
        for (int64_t q = x0; q < x1; ++q)
          sum += src[r * g.w + q];
      int64_t count = g.countIncludePad ? g.kh * g.kw : (y1 - y0) * (x1 - x0);
      out[i] = count > 0 ? float(sum / count) : 0.0f;
    }
  }
}

__global__ void backwardKernel(PoolGeometry g, const float *in,
                               const float *dOut, float *dIn) {
  int64_t total = g.n * g.c * g.outH * g.outW;
  FOR_EACH(i, total) {
    int64_t x = i % g.outW, y = (i / g.outW) % g.outH,
            plane = i / (g.outH * g.outW);
    const float *src = in + plane * g.h * g.w;
    float *dst = dIn + plane * g.h * g.w;
    int64_t y0, y1, x0, x1;
    windowOf(g, y, x, y0, y1, x0, x1);
    if (g.max) {
      // The gradient goes to the window's first maximum.
      int64_t at = -1;
      float best = -FLT_MAX;
      for (int64_t r = y0; r < y1; ++r)
        for (int64_t q = x0; q < x1; ++q)
          if (at < 0 || src[r * g.w + q] > best) {
            best = src[r * g.w + q];
            at = r * g.w + q;
          }
      if (at >= 0)
        atomicAdd(dst + at, dOut[i]);
    } else {
      int64_t count = g.countIncludePad ? g.kh * g.kw : (y1 - y0) * (x1 - x0);
      if (count == 0)
        continue;
      float share = dOut[i] / float(count);
      for (int64_t r = y0; r < y1; ++r)
        for (int64_t q = x0; q < x1; ++q)
          atomicAdd(dst + r * g.w + q, share);
    }
  }
}

class CudaPool2d final : public Pool2dKernels {
public:
  explicit CudaPool2d(Device &d) : stream_(cuda::CudaDevice::of(d).stream()) {}

  int64_t workspaceBytes(const Pool2dShape &) override { return 0; }

  void forward(const Pool2dShape &s, const float *in, float *out,
               void *) override {
    cuda::CudaDevice::requirePlainLayouts(s.layouts);
    PoolGeometry g = geometryOf(s);
    int64_t total = g.n * g.c * g.outH * g.outW;
    if (total > 0)
      forwardKernel<<<blocksFor(total), kThreads, 0, stream_>>>(g, in, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  void backward(const Pool2dShape &s, const float *in, const float *dOut,
                float *dIn, const void *) override {
    cuda::CudaDevice::requirePlainLayouts(s.layouts);
    PoolGeometry g = geometryOf(s);
    cuda::fill(stream_, dIn, g.n * g.c * g.h * g.w, 0.0f);
    int64_t total = g.n * g.c * g.outH * g.outW;
    if (total > 0)
      backwardKernel<<<blocksFor(total), kThreads, 0, stream_>>>(g, in, dOut,
                                                                 dIn);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

private:
  cudaStream_t stream_;
};

} // namespace

HDRT_REGISTER_KERNELS(Pool2dKernels, "cuda", CudaPool2d);

} // namespace hdrt
