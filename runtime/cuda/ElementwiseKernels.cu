//===- ElementwiseKernels.cu - activations and products on the GPU --------===//
//
// hd.activation with the formulas of hdrt/common/Activation.h, which the CPU
// loops use too, and hd.mul, whose broadcast gradient sums each row in
// double as the CPU does.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "Launch.cuh"

namespace hdrt::cuda {

namespace {

__global__ void activationForwardKernel(Activation f, int64_t count,
                                        const float *in, float *out) {
  FOR_EACH(i, count) out[i] = f.forward(in[i]);
}

__global__ void activationBackwardKernel(Activation f, int64_t count,
                                         const float *in, const float *dOut,
                                         float *dIn) {
  FOR_EACH(i, count) dIn[i] = f.backward(in[i], dOut[i]);
}

/// b[i / cols] when broadcast, else b[i].
__device__ float rhsOf(const float *b, bool broadcast, int64_t cols,
                       int64_t i) {
  return broadcast ? b[i / cols] : b[i];
}

__global__ void mulForwardKernel(int64_t count, int64_t cols, bool broadcast,
                                 const float *a, const float *b, float *out) {
  FOR_EACH(i, count) out[i] = a[i] * rhsOf(b, broadcast, cols, i);
}

__global__ void mulBackwardKernel(int64_t count, int64_t cols, bool broadcast,
                                  const float *a, const float *b,
                                  const float *dOut, float *dA, float *dB) {
  FOR_EACH(i, count) {
    if (dA)
      dA[i] = dOut[i] * rhsOf(b, broadcast, cols, i);
    if (dB && !broadcast)
      dB[i] = dOut[i] * a[i];
  }
}

/// One block per row: dB[r] = sum over the row of dOut * a.
__global__ void mulRowSumsKernel(int64_t cols, const float *a,
                                 const float *dOut, float *dB) {
  int64_t row = blockIdx.x;
  double sum = 0;
  for (int64_t i = threadIdx.x; i < cols; i += blockDim.x)
    sum += double(dOut[row * cols + i]) * a[row * cols + i];
  sum = blockSum(sum);
  if (threadIdx.x == 0)
    dB[row] = float(sum);
}

} // namespace

void activationForward(cudaStream_t s, const Activation &f, int64_t count,
                       const float *in, float *out) {
  if (count > 0)
    activationForwardKernel<<<blocksFor(count), kThreads, 0, s>>>(f, count, in,
                                                                  out);
}

void activationBackward(cudaStream_t s, const Activation &f, int64_t count,
                        const float *in, const float *dOut, float *dIn) {
  if (count > 0)
    activationBackwardKernel<<<blocksFor(count), kThreads, 0, s>>>(
        f, count, in, dOut, dIn);
}

void mulForward(cudaStream_t s, int64_t rows, int64_t cols, bool broadcast,
                const float *a, const float *b, float *out) {
  int64_t count = rows * cols;
  if (count > 0)
    mulForwardKernel<<<blocksFor(count), kThreads, 0, s>>>(count, cols,
                                                           broadcast, a, b, out);
}

void mulBackward(cudaStream_t s, int64_t rows, int64_t cols, bool broadcast,
                 const float *a, const float *b, const float *dOut, float *dA,
                 float *dB) {
  int64_t count = rows * cols;
  if (count <= 0)
    return;
  if (dA || (dB && !broadcast))
    mulBackwardKernel<<<blocksFor(count), kThreads, 0, s>>>(
        count, cols, broadcast, a, b, dOut, dA, dB);
  // Rows beyond a grid's reach do not occur: rows = samples x channels.
  if (dB && broadcast)
    mulRowSumsKernel<<<unsigned(rows), kThreads, 0, s>>>(cols, a, dOut, dB);
}

} // namespace hdrt::cuda
