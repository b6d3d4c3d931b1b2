//===- ElementwiseKernels.cu - activations and products on the GPU --------===//
//
// hd.activation and hd.binary with the formulas of hdrt/common/Activation.h
// and Binary.h, which the CPU loops use too; a broadcast operand's gradient
// sums each row in double as the CPU does.
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

__global__ void binaryForwardKernel(BinaryFunction f, int64_t count,
                                    int64_t cols, bool broadcast,
                                    const float *a, const float *b,
                                    float *out) {
  FOR_EACH(i, count) out[i] = applyBinary(f, a[i], b[broadcast ? i / cols : i]);
}

__global__ void binaryBackwardKernel(BinaryFunction f, int64_t count,
                                     int64_t cols, bool broadcast,
                                     const float *a, const float *b,
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
__global__ void binaryRowSumsKernel(BinaryFunction f, int64_t cols,
                                    const float *a, const float *b,
                                    const float *dOut, float *dB) {
  int64_t row = blockIdx.x;
  double sum = 0;
  for (int64_t i = threadIdx.x; i < cols; i += blockDim.x)
    sum += binaryGradRhs(f, a[row * cols + i], b[row], dOut[row * cols + i]);
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

void binaryForward(cudaStream_t s, BinaryFunction f, int64_t rows,
                   int64_t cols, bool broadcast, const float *a,
                   const float *b, float *out) {
  int64_t count = rows * cols;
  if (count > 0)
    binaryForwardKernel<<<blocksFor(count), kThreads, 0, s>>>(
        f, count, cols, broadcast, a, b, out);
}

void binaryBackward(cudaStream_t s, BinaryFunction f, int64_t rows,
                    int64_t cols, bool broadcast, const float *a,
                    const float *b, const float *dOut, float *dA, float *dB) {
  int64_t count = rows * cols;
  if (count <= 0)
    return;
  if (dA || (dB && !broadcast))
    binaryBackwardKernel<<<blocksFor(count), kThreads, 0, s>>>(
        f, count, cols, broadcast, a, b, dOut, dA, dB);
  // Rows beyond a grid's reach do not occur: rows = samples x channels.
  if (dB && broadcast)
    binaryRowSumsKernel<<<unsigned(rows), kThreads, 0, s>>>(f, cols, a, b,
                                                            dOut, dB);
}

} // namespace hdrt::cuda
