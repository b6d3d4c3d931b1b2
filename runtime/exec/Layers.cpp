//===- Layers.cpp - forward and backward of each layer kind on one tile ---===//
//
// A layer call runs this rank's task of the layer: its operands' input
// boxes are in place (filled by the data source, a transfer, or a local
// copy of this device's tile), the kernels compute the output tile, and
// backward leaves the gradient of each input box for the reversed transfer
// (or the local add) to route to its producer.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include <algorithm>

namespace hdrt::exec {

namespace {

int64_t extent(const Box &b, int d) { return b.hi[d] - b.lo[d]; }

/// The spatial size of a tile: rows x columns, or 1 for N x F tensors.
int64_t spatial(const Box &b) {
  return b.rank == 4 ? extent(b, 2) * extent(b, 3) : 1;
}

/// Batch norm's statistics average this many values per channel: the
/// global batch times the image.
int64_t valuesPerChannel(const Partition &p) {
  return p.shape[0] * (p.rank == 4 ? p.shape[2] * p.shape[3] : 1);
}

TileRegion regionOf(const Partition &p, const Box &b) {
  TileRegion r;
  r.rank = p.rank;
  for (int d = 0; d < p.rank; ++d) {
    r.shape[d] = p.shape[d];
    r.lo[d] = b.lo[d];
    r.hi[d] = b.hi[d];
  }
  return r;
}

} // namespace

void Program::forward(int64_t id) {
  Layer &l = layer(id);
  activity_ = "the forward of layer '" + l.name + "'";
  Charge charge(timers_, Category::Compute, &l.name, " fwd");
  l.partialLoss = 0;
  if (l.task < 0)
    return;
  for (Edge *e : l.inputs)
    gatherLocal(*e);
  Edge &in = *l.inputs[0];
  int64_t volume = l.tile.volume();
  switch (l.kind) {
  case Kind::Conv2d:
    forwardConv(l);
    break;
  case Kind::Pool2d:
    forwardPool(l);
    break;
  case Kind::Linear:
    forwardLinear(l);
    break;
  case Kind::BatchNorm:
    forwardBatchNorm(l);
    break;
  case Kind::Concat:
    forwardConcat(l);
    break;
  case Kind::Flatten:
    forwardFlatten(l);
    break;
  case Kind::SoftmaxCrossEntropy:
    forwardLoss(l);
    break;
  case Kind::Relu: {
    KernelTimer k(timers_);
    device_->reluForward(volume, in.in, l.value.data());
    break;
  }
  case Kind::Add: {
    KernelTimer k(timers_);
    device_->add(volume, in.in, l.inputs[1]->in, l.value.data());
    break;
  }
  case Kind::Dropout: {
    KernelTimer k(timers_);
    device_->dropout(regionOf(l.out, l.tile), options_.seed,
                     streamOf(kDropout, step_, l.id), float(l.float0), in.in,
                     l.value.data());
    break;
  }
  }
}

void Program::backward(int64_t id) {
  Layer &l = layer(id);
  activity_ = "the backward of layer '" + l.name + "'";
  Charge charge(timers_, Category::Compute, &l.name, " bwd");
  if (l.task < 0)
    return;
  Edge &in = *l.inputs[0];
  int64_t volume = l.tile.volume();
  switch (l.kind) {
  case Kind::Conv2d:
    backwardConv(l);
    break;
  case Kind::Pool2d:
    backwardPool(l);
    break;
  case Kind::Linear:
    backwardLinear(l);
    break;
  case Kind::BatchNorm:
    backwardBatchNorm(l);
    break;
  case Kind::Concat:
    backwardConcat(l);
    break;
  case Kind::Flatten:
    backwardFlatten(l);
    break;
  case Kind::SoftmaxCrossEntropy:
    backwardLoss(l);
    break;
  case Kind::Relu:
    if (in.dIn) {
      KernelTimer k(timers_);
      device_->reluBackward(volume, in.in, l.grad.data(), in.dIn);
    }
    break;
  case Kind::Add:
    for (Edge *e : l.inputs)
      if (e->dIn)
        device_->copyRows(e->dIn, volume, l.grad.data(), volume, 1, volume);
    break;
  case Kind::Dropout:
    if (in.dIn) {
      KernelTimer k(timers_);
      device_->dropout(regionOf(l.out, l.tile), options_.seed,
                       streamOf(kDropout, step_, l.id), float(l.float0),
                       l.grad.data(), in.dIn);
    }
    break;
  }
  for (Edge *e : l.inputs)
    scatterLocal(*e);
}

//===----------------------------------------------------------------------===//
// Dense layers: the tile's output channels use its shard of the weights
//===----------------------------------------------------------------------===//

/// A convolution tile whose windows lie entirely in the padding reads no
/// input: its output is the bias.
bool readsNothing(const Layer &l) { return l.conv.in.volume() == 0; }

void Program::forwardConv(Layer &l) {
  KernelTimer k(timers_);
  const float *bias = l.params.size() > 1 ? l.params[1].value.data() : nullptr;
  if (readsNothing(l)) {
    device_->fillChannels(extent(l.tile, 0), extent(l.tile, 1),
                          spatial(l.tile), bias, l.value.data());
    return;
  }
  device_->conv2dForward(l.conv.shape, l.inputs[0]->in,
                         l.params[0].value.data(), bias, l.value.data());
}

void Program::backwardConv(Layer &l) {
  KernelTimer k(timers_);
  Edge &in = *l.inputs[0];
  float *dBias = l.params.size() > 1 ? l.params[1].grad.data() : nullptr;
  if (readsNothing(l)) {
    device_->fill(l.params[0].grad.data(), l.params[0].grad.size(), 0.0f);
    if (dBias)
      device_->sumChannels(extent(l.tile, 0), extent(l.tile, 1),
                           spatial(l.tile), l.grad.data(), dBias);
    return;
  }
  device_->conv2dBackwardWeights(l.conv.shape, in.in, l.grad.data(),
                                 l.params[0].grad.data(), dBias);
  if (in.dIn) // The first layer has no input gradient to compute.
    device_->conv2dBackwardData(l.conv.shape, l.grad.data(),
                                l.params[0].value.data(), in.dIn);
}

void Program::forwardLinear(Layer &l) {
  KernelTimer k(timers_);
  Edge &in = *l.inputs[0];
  const float *bias = l.params.size() > 1 ? l.params[1].value.data() : nullptr;
  device_->linearForward(extent(l.tile, 0), extent(in.box, 1),
                         extent(l.tile, 1), in.in, l.params[0].value.data(),
                         bias, l.value.data());
}

void Program::backwardLinear(Layer &l) {
  KernelTimer k(timers_);
  Edge &in = *l.inputs[0];
  int64_t n = extent(l.tile, 0), f = extent(in.box, 1), c = extent(l.tile, 1);
  float *dBias = l.params.size() > 1 ? l.params[1].grad.data() : nullptr;
  device_->linearBackwardWeights(n, f, c, in.in, l.grad.data(),
                                 l.params[0].grad.data(), dBias);
  // With a channel split this is the tile's part of the input gradient; the
  // reversed transfer sums the parts.
  if (in.dIn)
    device_->linearBackwardData(n, f, c, l.grad.data(),
                                l.params[0].value.data(), in.dIn);
}

void Program::forwardPool(Layer &l) {
  KernelTimer k(timers_);
  device_->pool2dForward(l.pool.shape, l.inputs[0]->in, l.value.data());
}

void Program::backwardPool(Layer &l) {
  Edge &in = *l.inputs[0];
  if (!in.dIn)
    return;
  KernelTimer k(timers_);
  device_->pool2dBackward(l.pool.shape, in.in, l.grad.data(), in.dIn);
}

//===----------------------------------------------------------------------===//
// Batch norm: statistics over the global batch
//===----------------------------------------------------------------------===//

void Program::forwardBatchNorm(Layer &l) {
  const Box &t = l.tile;
  int64_t n = extent(t, 0), c = extent(t, 1), hw = spatial(t);
  const float *x = l.inputs[0]->in;
  {
    KernelTimer k(timers_);
    device_->batchNormPartialSums(n, c, hw, x, l.sums.data());
  }
  syncStatistics(l, l.sums.data(), 2 * c, ElementType::F64, ReduceOp::Sum);
  KernelTimer k(timers_);
  device_->batchNormStatistics(c, valuesPerChannel(l.out), l.float0,
                               l.sums.data(), l.mean.data(), l.invStd.data());
  device_->batchNormForward(n, c, hw, x, l.mean.data(), l.invStd.data(),
                            l.params[0].value.data(),
                            l.params[1].value.data(), l.value.data());
}

void Program::backwardBatchNorm(Layer &l) {
  const Box &t = l.tile;
  int64_t n = extent(t, 0), c = extent(t, 1), hw = spatial(t);
  Edge &in = *l.inputs[0];
  {
    KernelTimer k(timers_);
    device_->batchNormBackwardPartialSums(n, c, hw, in.in, l.grad.data(),
                                          l.mean.data(), l.invStd.data(),
                                          l.sums.data());
    // This tile's share of the scale and shift gradients; the gradient
    // sync sums the replicas' shares.
    device_->batchNormParamGrads(c, l.sums.data(), l.params[0].grad.data(),
                                 l.params[1].grad.data());
  }
  if (!in.dIn)
    return;
  syncStatistics(l, l.sums.data(), 2 * c, ElementType::F64, ReduceOp::Sum);
  KernelTimer k(timers_);
  device_->batchNormBackwardData(n, c, hw, valuesPerChannel(l.out), in.in,
                                 l.grad.data(), l.mean.data(),
                                 l.invStd.data(), l.params[0].value.data(),
                                 l.sums.data(), in.dIn);
}

/// Combines a layer's partial statistics with the tasks that share them.
void Program::syncStatistics(Layer &l, void *data, int64_t count,
                             ElementType type, ReduceOp op) {
  Charge sync(timers_, Category::Sync);
  if (int rc = device_->allReduce(l.statsComm, data, count, type, op))
    throw Error("error " + std::to_string(rc) +
                " combining the statistics of '" + l.name + "'");
}

//===----------------------------------------------------------------------===//
// Data movement within a task: concat and flatten
//===----------------------------------------------------------------------===//

namespace {

/// An operand's input box in the concat's output coordinates.
Box inOutput(const Edge &e) {
  Box b = e.box;
  b.lo[1] += e.channelOffset;
  b.hi[1] += e.channelOffset;
  return b;
}

} // namespace

void Program::forwardConcat(Layer &l) {
  KernelTimer k(timers_);
  for (Edge *e : l.inputs)
    if (e->hasBox) {
      Box b = inOutput(*e);
      device_->copyRegion(e->in, b, l.value.data(), l.tile, b);
    }
}

void Program::backwardConcat(Layer &l) {
  KernelTimer k(timers_);
  for (Edge *e : l.inputs)
    if (e->hasBox && e->dIn) {
      Box b = inOutput(*e);
      device_->copyRegion(l.grad.data(), l.tile, e->dIn, b, b);
    }
}

namespace {

/// Where a flatten tile's features lie in its input box: each sample's
/// row of the box holds whole channels around the tile's features.
struct FlattenRows {
  int64_t samples, features, rowIn, skip;

  FlattenRows(const Layer &l, const Edge &in) {
    int64_t hw = in.source.shape[2] * in.source.shape[3];
    samples = extent(l.tile, 0);
    features = extent(l.tile, 1);
    rowIn = in.box.volume() / extent(in.box, 0);
    skip = l.tile.lo[1] - in.box.lo[1] * hw;
  }
};

} // namespace

void Program::forwardFlatten(Layer &l) {
  KernelTimer k(timers_);
  Edge &in = *l.inputs[0];
  FlattenRows r(l, in);
  device_->copyRows(l.value.data(), r.features, in.in + r.skip, r.rowIn,
                    r.samples, r.features);
}

void Program::backwardFlatten(Layer &l) {
  Edge &in = *l.inputs[0];
  if (!in.dIn)
    return;
  KernelTimer k(timers_);
  FlattenRows r(l, in);
  device_->fill(in.dIn, in.box.volume(), 0.0f);
  device_->copyRows(in.dIn + r.skip, r.rowIn, l.grad.data(), r.features,
                    r.samples, r.features);
}

//===----------------------------------------------------------------------===//
// The loss: softmax over every class, mean over the global batch
//===----------------------------------------------------------------------===//

void Program::forwardLoss(Layer &l) {
  Edge &logits = *l.inputs[0], &labels = *l.inputs[1];
  int64_t n = extent(l.tile, 0), k = extent(l.tile, 1);
  int64_t classes = l.out.shape[1];
  if (int64_t bad = cpu::firstInvalidLabel(n, labels.labels.data(), classes);
      bad >= 0)
    throw Error("label " + std::to_string(labels.labels[bad]) +
                " of sample " + std::to_string(l.tile.lo[0] + bad) +
                " at step " + std::to_string(step_ + 1) +
                " is outside the " + std::to_string(classes) + " classes");
  {
    KernelTimer kt(timers_);
    device_->softmaxPartialMax(n, k, logits.in, l.max.data());
  }
  syncStatistics(l, l.max.data(), n, ElementType::F32, ReduceOp::Max);
  {
    KernelTimer kt(timers_);
    device_->softmaxPartialSum(n, k, logits.in, l.max.data(), l.sum.data());
  }
  syncStatistics(l, l.sum.data(), n, ElementType::F64, ReduceOp::Sum);
  KernelTimer kt(timers_);
  l.partialLoss = device_->softmaxCrossEntropyPartialLoss(
      n, k, l.tile.lo[1], logits.in, labels.deviceLabels.data(), l.max.data(),
      l.sum.data());
}

void Program::backwardLoss(Layer &l) {
  Edge &logits = *l.inputs[0], &labels = *l.inputs[1];
  if (!logits.dIn) // logits straight from the images: nothing to train
    return;
  KernelTimer kt(timers_);
  device_->softmaxCrossEntropyBackward(
      extent(l.tile, 0), extent(l.tile, 1), l.tile.lo[1], batch_, logits.in,
      labels.deviceLabels.data(), l.max.data(), l.sum.data(), logits.dIn);
}

} // namespace hdrt::exec
