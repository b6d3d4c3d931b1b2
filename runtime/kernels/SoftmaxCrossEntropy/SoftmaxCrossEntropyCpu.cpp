//===- SoftmaxCrossEntropyCpu.cpp - the loss on the host ------------------===//

#include "SoftmaxCrossEntropyKernels.h"

#include <algorithm>
#include <limits>

namespace hdrt {

namespace {

class CpuSoftmaxCrossEntropy final : public SoftmaxCrossEntropyKernels {
public:
  void partialMax(int64_t n, int64_t k, const float *logits,
                  float *max) override {
    std::fill(max, max + n, -std::numeric_limits<float>::infinity());
    for (int64_t s = 0; s < n; ++s)
      for (int64_t j = 0; j < k; ++j)
        max[s] = std::max(max[s], logits[s * k + j]);
  }

  void partialSum(int64_t n, int64_t k, const float *logits, const float *max,
                  double *sum) override {
    std::fill(sum, sum + n, 0.0);
    for (int64_t s = 0; s < n; ++s)
      for (int64_t j = 0; j < k; ++j)
        sum[s] += std::exp(double(logits[s * k + j]) - max[s]);
  }

  void partialLoss(int64_t n, int64_t k, int64_t classOffset,
                   const float *logits, const int32_t *labels, const float *max,
                   const double *sum, double *total) override {
    double loss = 0;
    for (int64_t s = 0; s < n; ++s) {
      int64_t j = int64_t(labels[s]) - classOffset;
      if (j < 0 || j >= k)
        continue; // Another tile holds this sample's label.
      loss += crossEntropyTerm(logits[s * k + j], max[s], sum[s]);
    }
    *total = loss;
  }

  void backward(int64_t n, int64_t k, int64_t classOffset, int64_t globalBatch,
                const float *logits, const int32_t *labels, const float *max,
                const double *sum, float *dLogits) override {
    for (int64_t s = 0; s < n; ++s)
      for (int64_t j = 0; j < k; ++j)
        dLogits[s * k + j] =
            crossEntropyGrad(logits[s * k + j], max[s], sum[s],
                             labels[s] == classOffset + j, globalBatch);
  }
};

} // namespace

HDRT_REGISTER_KERNELS(SoftmaxCrossEntropyKernels, "cpu",
                      CpuSoftmaxCrossEntropy);

} // namespace hdrt
