//===- Kernels.h - the CUDA backend's own kernels ---------------*- C++ -*-===//
//
// Everything the CUDA device computes that cuDNN and cuBLAS do not, with the
// semantics of the CPU kernels (hdrt/cpu/TileOps.h, hdrt/cpu/Kernels.h):
// box copies, element-wise layers, batch norm and softmax split into partial
// reductions, pooling with per-side padding, the optimizer. Each launches on
// `stream` and returns without waiting.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_CUDA_KERNELS_H
#define HDRT_CUDA_KERNELS_H

#include "hdrt/Box.h"
#include "hdrt/common/Activation.h"
#include "hdrt/common/Binary.h"
#include "hdrt/common/Geometry.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace hdrt::cuda {

void fill(cudaStream_t s, float *dst, int64_t count, float value);
void copyRegion(cudaStream_t s, const float *src, const Box &srcBox,
                float *dst, const Box &dstBox, const Box &region, bool add);
/// Sets *flag (device int) to 1 when any element is NaN or infinite.
void findNonFinite(cudaStream_t s, const float *data, int64_t count,
                   int *flag);

void fillChannels(cudaStream_t s, int64_t n, int64_t c, int64_t hw,
                  const float *perChannel, float *out);
void sumChannels(cudaStream_t s, int64_t n, int64_t c, int64_t hw,
                 const float *in, float *out);
/// out[r, j] += bias[j] for an R x K row-major matrix.
void addRowBias(cudaStream_t s, int64_t rows, int64_t k, const float *bias,
                float *out);
/// dBias[j] = sum over rows of dOut[r, j] (overwritten).
void sumRows(cudaStream_t s, int64_t rows, int64_t k, const float *dOut,
             float *dBias);

void reluForward(cudaStream_t s, int64_t count, const float *in, float *out);
void reluBackward(cudaStream_t s, int64_t count, const float *in,
                  const float *dOut, float *dIn);
void add(cudaStream_t s, int64_t count, const float *a, const float *b,
         float *out);
/// ElementwiseKernels.cu: Device::activation* and Device::binary*.
void activationForward(cudaStream_t s, const Activation &f, int64_t count,
                       const float *in, float *out);
void activationBackward(cudaStream_t s, const Activation &f, int64_t count,
                        const float *in, const float *dOut, float *dIn);
void binaryForward(cudaStream_t s, BinaryFunction f, int64_t rows,
                   int64_t cols, bool broadcast, const float *a,
                   const float *b, float *out);
void binaryBackward(cudaStream_t s, BinaryFunction f, int64_t rows,
                    int64_t cols, bool broadcast, const float *a,
                    const float *b, const float *dOut, float *dA, float *dB);
void dropout(cudaStream_t s, const TileRegion &tile, uint64_t seed,
             uint64_t stream, float ratio, const float *in, float *out);
void sgdMomentum(cudaStream_t s, int64_t count, float lr, float momentum,
                 float weightDecay, bool nesterov, float *param,
                 const float *grad, float *velocity);

void pool2dForward(cudaStream_t s, const Pool2dShape &p, const float *in,
                   float *out);
/// dIn is overwritten.
void pool2dBackward(cudaStream_t s, const Pool2dShape &p,
                    const float *in, const float *dOut, float *dIn);

/// The doubles of scratch the two partial-sums calls need for this shape.
int64_t batchNormScratchCount(int64_t n, int64_t c, int64_t hw);
void batchNormPartialSums(cudaStream_t s, int64_t n, int64_t c, int64_t hw,
                          const float *in, double *scratch, double *sums);
void batchNormStatistics(cudaStream_t s, int64_t c, int64_t count, double eps,
                         const double *sums, float *mean, float *invStd);
void batchNormRunningUpdate(cudaStream_t s, int64_t c, int64_t count,
                            double momentum, const double *sums,
                            float *runningMean, float *runningVar);
void batchNormInvStd(cudaStream_t s, int64_t c, double eps, const float *var,
                     float *invStd);
void batchNormForward(cudaStream_t s, int64_t n, int64_t c, int64_t hw,
                      const float *in, const float *mean, const float *invStd,
                      const float *scale, const float *shift, float *out);
void batchNormBackwardPartialSums(cudaStream_t s, int64_t n, int64_t c,
                                  int64_t hw, const float *in,
                                  const float *dOut, const float *mean,
                                  const float *invStd, double *scratch,
                                  double *sums);
void batchNormParamGrads(cudaStream_t s, int64_t c, const double *sums,
                         float *dScale, float *dShift);
void batchNormBackwardData(cudaStream_t s, int64_t n, int64_t c, int64_t hw,
                           int64_t count, const float *in, const float *dOut,
                           const float *mean, const float *invStd,
                           const float *scale, const double *sums,
                           float *dIn);

/// ChannelKernels.cu: Device::layerNorm* and Device::channelShuffle.
void layerNormPartialSums(cudaStream_t s, int64_t n, int64_t c, int64_t hw,
                          const float *in, double *sums);
void layerNormForward(cudaStream_t s, int64_t n, int64_t c, int64_t hw,
                      int64_t channels, double eps, const double *sums,
                      const float *in, const float *scale, const float *shift,
                      float *mean, float *invStd, float *out);
void layerNormBackwardPartialSums(cudaStream_t s, int64_t n, int64_t c,
                                  int64_t hw, const float *in,
                                  const float *dOut, const float *mean,
                                  const float *invStd, const float *scale,
                                  double *sums);
void layerNormBackward(cudaStream_t s, int64_t n, int64_t c, int64_t hw,
                       int64_t channels, const float *in, const float *dOut,
                       const float *mean, const float *invStd,
                       const float *scale, const double *sums, float *dIn,
                       float *dScale, float *dShift);
void channelShuffle(cudaStream_t s, int64_t n, int64_t c, int64_t hw,
                    int64_t groups, const float *in, float *out);

void softmaxPartialMax(cudaStream_t s, int64_t n, int64_t k,
                       const float *logits, float *max);
void softmaxPartialSum(cudaStream_t s, int64_t n, int64_t k,
                       const float *logits, const float *max, double *sum);
/// *loss (device double) = the tile's summed -log softmax of its labels.
void softmaxCrossEntropyPartialLoss(cudaStream_t s, int64_t n, int64_t k,
                                    int64_t classOffset, const float *logits,
                                    const int32_t *labels, const float *max,
                                    const double *sum, double *loss);
void softmaxCrossEntropyBackward(cudaStream_t s, int64_t n, int64_t k,
                                 int64_t classOffset, int64_t globalBatch,
                                 const float *logits, const int32_t *labels,
                                 const float *max, const double *sum,
                                 float *dLogits);

} // namespace hdrt::cuda

#endif // HDRT_CUDA_KERNELS_H
