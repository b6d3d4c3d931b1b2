//===- SoftmaxCrossEntropyCuda.cu - the loss on the GPU -------------------===//
//
// One block per sample for the maximum and the sum; the tile's loss is
// summed by one block and read back through pinned memory, the only value
// a step brings to the host.
//
//===----------------------------------------------------------------------===//

#include "SoftmaxCrossEntropyKernels.h"

#include "cuda/Check.h"
#include "cuda/CudaDevice.h"
#include "cuda/Launch.cuh"

namespace hdrt {

namespace {

using cuda::blocksFor;
using cuda::kThreads;

__global__ void maxKernel(int64_t k, const float *logits, float *max) {
  __shared__ float best[kThreads];
  int64_t s = blockIdx.x;
  float m = -INFINITY;
  for (int64_t j = threadIdx.x; j < k; j += blockDim.x)
    m = fmaxf(m, logits[s * k + j]);
  best[threadIdx.x] = m;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      best[threadIdx.x] = fmaxf(best[threadIdx.x], best[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    max[s] = best[0];
}

__global__ void sumKernel(int64_t k, const float *logits, const float *max,
                          double *sum) {
  int64_t s = blockIdx.x;
  double total = 0;
  for (int64_t j = threadIdx.x; j < k; j += blockDim.x)
    total += exp(double(logits[s * k + j]) - max[s]);
  total = cuda::blockSum(total);
  if (threadIdx.x == 0)
    sum[s] = total;
}

__global__ void lossKernel(int64_t n, int64_t k, int64_t classOffset,
                           const float *logits, const int32_t *labels,
                           const float *max, const double *sum, double *loss) {
  double mine = 0;
  for (int64_t s = threadIdx.x; s < n; s += blockDim.x) {
    int64_t j = int64_t(labels[s]) - classOffset;
    if (j >= 0 && j < k)
      mine += crossEntropyTerm(logits[s * k + j], max[s], sum[s]);
  }
  mine = cuda::blockSum(mine);
  if (threadIdx.x == 0)
    *loss = mine;
}

__global__ void backwardKernel(int64_t total, int64_t k, int64_t classOffset,
                               int64_t batch, const float *logits,
                               const int32_t *labels, const float *max,
                               const double *sum, float *dLogits) {
  FOR_EACH(i, total) {
    int64_t s = i / k, j = i % k;
    dLogits[i] = crossEntropyGrad(logits[i], max[s], sum[s],
                                  labels[s] == classOffset + j, batch);
  }
}

class CudaSoftmaxCrossEntropy final : public SoftmaxCrossEntropyKernels {
public:
  explicit CudaSoftmaxCrossEntropy(Device &d)
      : stream_(cuda::CudaDevice::of(d).stream()) {}

  void partialMax(int64_t n, int64_t k, const float *logits,
                  float *max) override {
    if (n > 0)
      maxKernel<<<unsigned(n), kThreads, 0, stream_>>>(k, logits, max);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  void partialSum(int64_t n, int64_t k, const float *logits, const float *max,
                  double *sum) override {
    if (n > 0)
      sumKernel<<<unsigned(n), kThreads, 0, stream_>>>(k, logits, max, sum);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  void partialLoss(int64_t n, int64_t k, int64_t classOffset,
                   const float *logits, const int32_t *labels, const float *max,
                   const double *sum, double *loss) override {
    lossKernel<<<1, kThreads, 0, stream_>>>(n, k, classOffset, logits, labels,
                                            max, sum, loss);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  void backward(int64_t n, int64_t k, int64_t classOffset, int64_t globalBatch,
                const float *logits, const int32_t *labels, const float *max,
                const double *sum, float *dLogits) override {
    int64_t total = n * k;
    if (total > 0)
      backwardKernel<<<blocksFor(total), kThreads, 0, stream_>>>(
          total, k, classOffset, globalBatch, logits, labels, max, sum,
          dLogits);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

private:
  cudaStream_t stream_;
};

} // namespace

HDRT_REGISTER_KERNELS(SoftmaxCrossEntropyKernels, "cuda",
                      CudaSoftmaxCrossEntropy);

} // namespace hdrt
