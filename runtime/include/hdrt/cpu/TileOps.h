//===- TileOps.h - loop kernels whose semantics span tiles ------*- C++ -*-===//
//
// Layers whose result on one tile depends on other tiles (batch-norm
// statistics over the global batch, softmax over all classes) are split in
// two steps: a partial reduction of the tile, which the caller all-reduces
// across the tasks that share channels (or samples), then the tile's part
// computed from the global values. Run on one tile holding everything, the
// steps give the unsplit layer; that is what makes parallel equal serial.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_CPU_TILEOPS_H
#define HDRT_CPU_TILEOPS_H

#include "hdrt/common/Activation.h"
#include "hdrt/common/Binary.h"
#include "hdrt/common/Geometry.h"

#include <cstdint>

namespace hdrt::cpu {

//===----------------------------------------------------------------------===//
// Batch norm on a tile of C channels: NCHW (`block` 1) or nChw<block>c
// (8 or 16, dividing C), oneDNN's blocked layouts
//===----------------------------------------------------------------------===//

/// Adds the tile's per-channel sum and sum of squares to `sum`, `sumSq`.
void batchNormPartialSums(int64_t n, int64_t c, int64_t hw, int64_t block,
                          const float *in, double *sum, double *sumSq);
/// From global sums over `count` = N*H*W elements per channel: mean and
/// 1/sqrt(var + eps), biased variance as in training.
void batchNormStatistics(int64_t c, int64_t count, double eps,
                         const double *sum, const double *sumSq, float *mean,
                         float *invStd);
/// Running statistics, as PyTorch keeps them (ONNX's `momentum`, the
/// weight of the old value, is 1 - PyTorch's): from the global sums of a
/// training step, running = momentum * running + (1 - momentum) * batch,
/// with the batch's unbiased variance.
void batchNormRunningUpdate(int64_t c, int64_t count, double momentum,
                            const double *sum, const double *sumSq,
                            float *runningMean, float *runningVar);
/// invStd = 1 / sqrt(var + eps): inference normalizes with the running
/// statistics.
void batchNormInvStd(int64_t c, double eps, const float *var, float *invStd);
/// With `relu`, out = max(the normalized value, 0) as reluForward computes
/// it: a batch norm and the ReLU that is its only reader in one pass.
void batchNormForward(int64_t n, int64_t c, int64_t hw, int64_t block,
                      const float *in, const float *mean, const float *invStd,
                      const float *scale, const float *shift, float *out,
                      bool relu = false);
/// Adds the tile's per-channel sums of dOut and dOut * xhat: the global
/// values are also the gradients of shift and scale.
void batchNormBackwardPartialSums(int64_t n, int64_t c, int64_t hw,
                                  int64_t block, const float *in,
                                  const float *dOut, const float *mean,
                                  const float *invStd, double *sumDOut,
                                  double *sumDOutXhat);
void batchNormBackwardData(int64_t n, int64_t c, int64_t hw, int64_t block,
                           int64_t count, const float *in, const float *dOut,
                           const float *mean, const float *invStd,
                           const float *scale, const double *sumDOut,
                           const double *sumDOutXhat, float *dIn);

//===----------------------------------------------------------------------===//
// Softmax cross-entropy on an N x K tile of logits: classes
// [classOffset, classOffset + K) of every sample in the tile
//===----------------------------------------------------------------------===//

/// max[i] = max(max[i], the tile's largest logit of sample i).
void softmaxPartialMax(int64_t n, int64_t k, const float *logits,
                       float *max);
/// sum[i] += sum over the tile's classes of exp(logit - max[i]).
void softmaxPartialSum(int64_t n, int64_t k, const float *logits,
                       const float *max, double *sum);
/// Sum over the tile's samples whose label is one of its classes of
/// -log softmax; the loss is the all-reduced sum / global batch.
double softmaxCrossEntropyPartialLoss(int64_t n, int64_t k,
                                      int64_t classOffset,
                                      const float *logits,
                                      const int32_t *labels, const float *max,
                                      const double *sum);
/// dLogits = (softmax - onehot(label)) / globalBatch.
void softmaxCrossEntropyBackward(int64_t n, int64_t k, int64_t classOffset,
                                 int64_t globalBatch, const float *logits,
                                 const int32_t *labels, const float *max,
                                 const double *sum, float *dLogits);

//===----------------------------------------------------------------------===//
// Dropout, elementwise layers, the optimizer
//===----------------------------------------------------------------------===//

/// out = in * mask / (1 - ratio); the mask of each element is drawn from
/// (seed, layer, its global index), so it does not depend on the split.
/// Backward is the same call on the gradients.
void dropout(const TileRegion &tile, uint64_t seed, uint64_t layer,
             float ratio, const float *in, float *out);

/// out = a + b (backward: both inputs get dOut); with `relu`, the ReLU of
/// the sum as reluForward computes it.
void add(int64_t count, const float *a, const float *b, float *out,
         bool relu = false);

/// hd.activation's function on each element, and its gradient from the
/// input (Device::activationForward/Backward).
void activationForward(const Activation &f, int64_t count, const float *in,
                       float *out);
void activationBackward(const Activation &f, int64_t count, const float *in,
                        const float *dOut, float *dIn);

/// hd.binary (Device::binaryForward/Backward): b per row when `broadcast`.
void binaryForward(BinaryFunction f, int64_t rows, int64_t cols,
                   bool broadcast, const float *a, const float *b, float *out);
void binaryBackward(BinaryFunction f, int64_t rows, int64_t cols,
                    bool broadcast, const float *a, const float *b,
                    const float *dOut, float *dA, float *dB);

/// Layer norm over channels and the channel shuffle
/// (Device::layerNorm*, Device::channelShuffle).
void layerNormPartialSums(int64_t n, int64_t c, int64_t hw, const float *in,
                          double *sums);
void layerNormForward(int64_t n, int64_t c, int64_t hw, int64_t channels,
                      double eps, const double *sums, const float *in,
                      const float *scale, const float *shift, float *mean,
                      float *invStd, float *out);
void layerNormBackwardPartialSums(int64_t n, int64_t c, int64_t hw,
                                  const float *in, const float *dOut,
                                  const float *mean, const float *invStd,
                                  const float *scale, double *sums);
void layerNormBackward(int64_t n, int64_t c, int64_t hw, int64_t channels,
                       const float *in, const float *dOut, const float *mean,
                       const float *invStd, const float *scale,
                       const double *sums, float *dIn, float *dScale,
                       float *dShift);
void channelShuffle(int64_t n, int64_t c, int64_t hw, int64_t groups,
                    const float *in, float *out);

/// SGD with momentum and weight decay, as PyTorch: d = g + weightDecay * p;
/// v = momentum * v + d; p -= lr * v, or with Nesterov momentum
/// p -= lr * (d + momentum * v).
void sgdMomentum(int64_t count, float lr, float momentum, float weightDecay,
                 bool nesterov, float *param, const float *grad,
                 float *velocity);

} // namespace hdrt::cpu

#endif // HDRT_CPU_TILEOPS_H
