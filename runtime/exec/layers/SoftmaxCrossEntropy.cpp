//===- SoftmaxCrossEntropy.cpp - the loss, mean over the global batch -----===//
//
// The softmax spans every class: each tile of samples x classes takes its
// part of the per-sample maximum and sum of exponentials, all-reduced over
// the tasks that hold the same samples (`statsComm`); the step's loss is
// the sum of the tiles' partial losses over the global batch. In inference
// it also counts the top-1 and top-5 accuracy.
//
//===----------------------------------------------------------------------===//

#include "../InputSource.h"
#include "../LayerImpl.h"

#include "kernels/SoftmaxCrossEntropy/SoftmaxCrossEntropyKernels.h"

#include <cmath>

namespace hdrt::exec {

namespace {

struct LossState : LayerState {
  // Per sample: the maximum and the sum of exponentials.
  Buffer<float> max;
  Buffer<double> sum;
};

/// The index of the first label outside [0, classes) (padding allowed in
/// inference), or -1 when all are valid. Checked before the loss: a bad
/// label would silently add nothing.
int64_t firstInvalidLabel(int64_t n, const int32_t *labels, int64_t classes,
                          bool padding) {
  for (int64_t s = 0; s < n; ++s)
    if ((labels[s] < 0 || labels[s] >= classes) &&
        !(padding && labels[s] == kPaddingLabel))
      return s;
  return -1;
}

/// Top-1 and top-5 of the tile's samples: a sample's label logit, from the
/// tile that holds its class, and the number of its logits ranked before
/// it, over every tile that holds the sample. As PyTorch's argmax and topk
/// rank them: a tie goes to the lower class, and NaN comes first, so a
/// diverged model (or one whose logits are all equal) scores no better
/// than its ranking. Counted on the host: an evaluation batch's logits are
/// small, and so are its messages.
Accuracy accuracyOf(LayerContext &ctx, const Layer &l,
                    const float *deviceLogits,
                    const std::vector<int32_t> &labels) {
  int64_t n = extent(l.tile, 0), k = extent(l.tile, 1), first = l.tile.lo[1];
  std::vector<float> logits(size_t(n * k));
  ctx.device().download(logits.data(), deviceLogits, logits.size() * 4);
  auto mine = [&](int64_t s) {
    return labels[s] >= first && labels[s] < first + k;
  };
  std::vector<float> labelLogit(size_t(n), -HUGE_VALF);
  for (int64_t s = 0; s < n; ++s)
    if (mine(s)) {
      float x = logits[size_t(s * k + labels[s] - first)];
      labelLogit[s] = std::isnan(x) ? -HUGE_VALF : x; // last, whatever else
    }
  if (l.statsComm != MPI_COMM_NULL)
    MPI_Allreduce(MPI_IN_PLACE, labelLogit.data(), int(n), MPI_FLOAT, MPI_MAX,
                  l.statsComm);
  std::vector<int64_t> above(size_t(n), 0);
  for (int64_t s = 0; s < n; ++s)
    for (int64_t j = 0; j < k; ++j) {
      float x = logits[size_t(s * k + j)], label = labelLogit[s];
      above[s] +=
          std::isnan(x) || x > label || (x == label && first + j < labels[s]);
    }
  if (l.statsComm != MPI_COMM_NULL)
    MPI_Allreduce(MPI_IN_PLACE, above.data(), int(n), MPI_INT64_T, MPI_SUM,
                  l.statsComm);
  Accuracy a;
  for (int64_t s = 0; s < n; ++s)
    if (mine(s)) {
      ++a.samples;
      a.top1 += above[s] < 1;
      a.top5 += above[s] < 5;
    }
  return a;
}

class SoftmaxCrossEntropyImplementation final : public LayerImpl {
  bool isLoss() const override { return true; }

  void prepare(LayerContext &ctx, Layer &l) const override {
    auto state = std::make_unique<LossState>();
    if (l.task >= 0) {
      int64_t n = extent(l.tile, 0);
      state->max.assign(ctx.device(), n);
      state->sum.assign(ctx.device(), n);
      l.partialLoss.assign(ctx.device(), 1);
    }
    l.state = std::move(state);
  }

  Box inputBox(const Layer &l, const Edge &e, const Box &whole) const override {
    if (e.operand == 0)
      return l.tile;  // the logits
    Box rows = whole; // the labels of the tile's samples
    rows.lo[0] = l.tile.lo[0];
    rows.hi[0] = l.tile.hi[0];
    return rows;
  }

  void forward(LayerContext &ctx, Layer &l) const override {
    LossState &s = l.stateAs<LossState>();
    Edge &logits = *l.inputs[0], &labels = *l.inputs[1];
    int64_t n = extent(l.tile, 0), k = extent(l.tile, 1);
    int64_t classes = l.out.shape[1];
    if (int64_t bad = firstInvalidLabel(n, labels.labels.data(), classes,
                                        !ctx.training());
        bad >= 0)
      throw Error("label " + std::to_string(labels.labels[bad]) +
                  " of sample " + std::to_string(l.tile.lo[0] + bad) +
                  " at step " + std::to_string(ctx.step() + 1) +
                  " is outside the " + std::to_string(classes) + " classes");
    {
      KernelTimer kt(ctx.timers());
      kernelsOf<SoftmaxCrossEntropyKernels>(ctx.device())
          .partialMax(n, k, logits.in, s.max.data());
    }
    ctx.syncStatistics(l, s.max.data(), n, ElementType::F32, ReduceOp::Max);
    {
      KernelTimer kt(ctx.timers());
      kernelsOf<SoftmaxCrossEntropyKernels>(ctx.device())
          .partialSum(n, k, logits.in, s.max.data(), s.sum.data());
    }
    ctx.syncStatistics(l, s.sum.data(), n, ElementType::F64, ReduceOp::Sum);
    KernelTimer kt(ctx.timers());
    kernelsOf<SoftmaxCrossEntropyKernels>(ctx.device())
        .partialLoss(n, k, l.tile.lo[1], logits.in, labels.deviceLabels.data(),
                     s.max.data(), s.sum.data(), l.partialLoss.data());
    if (!ctx.training())
      l.accuracy = accuracyOf(ctx, l, logits.in, labels.labels);
  }

  void backward(LayerContext &ctx, Layer &l) const override {
    LossState &s = l.stateAs<LossState>();
    Edge &logits = *l.inputs[0], &labels = *l.inputs[1];
    if (!logits.dIn) // logits straight from the images: nothing to train
      return;
    KernelTimer kt(ctx.timers());
    kernelsOf<SoftmaxCrossEntropyKernels>(ctx.device())
        .backward(extent(l.tile, 0), extent(l.tile, 1), l.tile.lo[1],
                  ctx.batch(), logits.in, labels.deviceLabels.data(),
                  s.max.data(), s.sum.data(), logits.dIn);
  }
};

} // namespace

const LayerImpl &SoftmaxCrossEntropyImpl() {
  static const SoftmaxCrossEntropyImplementation impl;
  return impl;
}

} // namespace hdrt::exec
