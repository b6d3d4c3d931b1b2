//===- SoftmaxCrossEntropyKernels.h - the loss on an N x K tile -*- C++ -*-===//
//
// The softmax spans every class: a tile of samples x classes
// [classOffset, classOffset + K) takes its part of each sample's maximum and
// sum of exponentials, which the executor all-reduces over the tasks that
// hold the same samples, then its part of the loss and of the gradient.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_KERNELS_SOFTMAXCROSSENTROPY_SOFTMAXCROSSENTROPYKERNELS_H
#define HDRT_KERNELS_SOFTMAXCROSSENTROPY_SOFTMAXCROSSENTROPYKERNELS_H

#include "hdrt/Kernels.h"
#include "hdrt/Random.h" // HDRT_HOST_DEVICE

#include <cmath>
#include <cstdint>

namespace hdrt {

/// -log softmax of a sample's label logit.
HDRT_HOST_DEVICE inline double crossEntropyTerm(float labelLogit, float max,
                                                double sum) {
  return -(double(labelLogit) - max - log(sum));
}

/// dLogit = (softmax - onehot(label)) / globalBatch.
HDRT_HOST_DEVICE inline float crossEntropyGrad(float logit, float max,
                                               double sum, bool isLabel,
                                               int64_t globalBatch) {
  double p = exp(double(logit) - max) / sum;
  if (isLabel)
    p -= 1;
  return static_cast<float>(p / globalBatch);
}

class SoftmaxCrossEntropyKernels : public KernelSet {
public:
  static constexpr const char *kName = "SoftmaxCrossEntropy";

  /// max (n floats, overwritten) = the tile's largest logit of each sample.
  virtual void partialMax(int64_t n, int64_t k, const float *logits,
                          float *max) = 0;
  /// sum (n doubles, overwritten) = the tile's sum of exp(logit - max).
  virtual void partialSum(int64_t n, int64_t k, const float *logits,
                          const float *max, double *sum) = 0;
  /// loss (one double) = the sum of crossEntropyTerm over the tile's
  /// samples whose label is one of its classes; the loss is the
  /// all-reduced sum over the global batch. Does not wait: the step reads
  /// it when it ends.
  virtual void partialLoss(int64_t n, int64_t k, int64_t classOffset,
                           const float *logits, const int32_t *labels,
                           const float *max, const double *sum,
                           double *loss) = 0;
  /// dLogits = crossEntropyGrad of each logit.
  virtual void backward(int64_t n, int64_t k, int64_t classOffset,
                        int64_t globalBatch, const float *logits,
                        const int32_t *labels, const float *max,
                        const double *sum, float *dLogits) = 0;
};

} // namespace hdrt

#endif // HDRT_KERNELS_SOFTMAXCROSSENTROPY_SOFTMAXCROSSENTROPYKERNELS_H
