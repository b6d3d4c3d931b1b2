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

#include "hdrt/Random.h"
#include "hdrt/cpu/Kernels.h"
#include "hdrt/cpu/TileOps.h"

#include <algorithm>
#include <cstring>
#include <limits>

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

/// Sums `data` over `comm` when it has other members.
template <typename T>
void allReduce(MPI_Comm comm, T *data, int64_t count, MPI_Datatype type,
               MPI_Op op) {
  int size = 1;
  if (comm == MPI_COMM_NULL || (MPI_Comm_size(comm, &size), size == 1))
    return;
  MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(count), type, op, comm);
}

cpu::TileRegion regionOf(const Partition &p, const Box &b) {
  cpu::TileRegion r;
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
    cpu::reluForward(volume, in.in, l.value.data());
    break;
  }
  case Kind::Add: {
    KernelTimer k(timers_);
    cpu::add(volume, in.in, l.inputs[1]->in, l.value.data());
    break;
  }
  case Kind::Dropout: {
    KernelTimer k(timers_);
    cpu::dropout(regionOf(l.out, l.tile), options_.seed,
                 streamOf(kDropout, step_, l.id), float(l.float0), in.in,
                 l.value.data());
    break;
  }
  }
}

void Program::backward(int64_t id) {
  Layer &l = layer(id);
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
      cpu::reluBackward(volume, in.in, l.grad.data(), in.dIn);
    }
    break;
  case Kind::Add:
    for (Edge *e : l.inputs)
      if (e->dIn)
        std::memcpy(e->dIn, l.grad.data(), volume * sizeof(float));
    break;
  case Kind::Dropout:
    if (in.dIn) {
      KernelTimer k(timers_);
      cpu::dropout(regionOf(l.out, l.tile), options_.seed,
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
    int64_t plane = spatial(l.tile), channels = extent(l.tile, 1);
    for (int64_t i = 0; i < int64_t(l.value.size()); ++i)
      l.value[i] = bias ? bias[(i / plane) % channels] : 0.0f;
    return;
  }
  cpu::conv2dForward(l.conv.shape, l.inputs[0]->in, l.params[0].value.data(),
                     bias, l.value.data());
}

void Program::backwardConv(Layer &l) {
  KernelTimer k(timers_);
  Edge &in = *l.inputs[0];
  float *dBias = l.params.size() > 1 ? l.params[1].grad.data() : nullptr;
  if (readsNothing(l)) {
    std::fill(l.params[0].grad.begin(), l.params[0].grad.end(), 0.0f);
    if (dBias) {
      int64_t plane = spatial(l.tile), channels = extent(l.tile, 1);
      std::fill(dBias, dBias + channels, 0.0f);
      for (int64_t i = 0; i < int64_t(l.grad.size()); ++i)
        dBias[(i / plane) % channels] += l.grad[i];
    }
    return;
  }
  cpu::conv2dBackwardWeights(l.conv.shape, in.in, l.grad.data(),
                             l.params[0].grad.data(), dBias);
  if (in.dIn) // The first layer has no input gradient to compute.
    cpu::conv2dBackwardData(l.conv.shape, l.grad.data(),
                            l.params[0].value.data(), in.dIn);
}

void Program::forwardLinear(Layer &l) {
  KernelTimer k(timers_);
  Edge &in = *l.inputs[0];
  const float *bias = l.params.size() > 1 ? l.params[1].value.data() : nullptr;
  cpu::linearForward(extent(l.tile, 0), extent(in.box, 1), extent(l.tile, 1),
                     in.in, l.params[0].value.data(), bias, l.value.data());
}

void Program::backwardLinear(Layer &l) {
  KernelTimer k(timers_);
  Edge &in = *l.inputs[0];
  int64_t n = extent(l.tile, 0), f = extent(in.box, 1), c = extent(l.tile, 1);
  float *dBias = l.params.size() > 1 ? l.params[1].grad.data() : nullptr;
  cpu::linearBackwardWeights(n, f, c, in.in, l.grad.data(),
                             l.params[0].grad.data(), dBias);
  // With a channel split this is the tile's part of the input gradient; the
  // reversed transfer sums the parts.
  if (in.dIn)
    cpu::linearBackwardData(n, f, c, l.grad.data(), l.params[0].value.data(),
                            in.dIn);
}

void Program::forwardPool(Layer &l) {
  KernelTimer k(timers_);
  cpu::pool2dForward(l.pool.shape, l.inputs[0]->in, l.value.data());
}

void Program::backwardPool(Layer &l) {
  Edge &in = *l.inputs[0];
  if (!in.dIn)
    return;
  KernelTimer k(timers_);
  cpu::pool2dBackward(l.pool.shape, in.in, l.grad.data(), in.dIn);
}

//===----------------------------------------------------------------------===//
// Batch norm: statistics over the global batch
//===----------------------------------------------------------------------===//

void Program::forwardBatchNorm(Layer &l) {
  const Box &t = l.tile;
  int64_t n = extent(t, 0), c = extent(t, 1), hw = spatial(t);
  int64_t count = valuesPerChannel(l.out);
  std::vector<double> sums(2 * c, 0.0);
  const float *x = l.inputs[0]->in;
  {
    KernelTimer k(timers_);
    cpu::batchNormPartialSums(n, c, hw, x, sums.data(), sums.data() + c);
  }
  {
    Charge sync(timers_, Category::Sync);
    allReduce(l.statsComm, sums.data(), 2 * c, MPI_DOUBLE, MPI_SUM);
  }
  KernelTimer k(timers_);
  l.mean.resize(c);
  l.invStd.resize(c);
  cpu::batchNormStatistics(c, count, l.float0, sums.data(), sums.data() + c,
                           l.mean.data(), l.invStd.data());
  cpu::batchNormForward(n, c, hw, x, l.mean.data(), l.invStd.data(),
                        l.params[0].value.data(), l.params[1].value.data(),
                        l.value.data());
}

void Program::backwardBatchNorm(Layer &l) {
  const Box &t = l.tile;
  int64_t n = extent(t, 0), c = extent(t, 1), hw = spatial(t);
  int64_t count = valuesPerChannel(l.out);
  Edge &in = *l.inputs[0];
  std::vector<double> sums(2 * c, 0.0);
  {
    KernelTimer k(timers_);
    cpu::batchNormBackwardPartialSums(n, c, hw, in.in, l.grad.data(),
                                      l.mean.data(), l.invStd.data(),
                                      sums.data(), sums.data() + c);
  }
  // This tile's share of the scale and shift gradients; the gradient sync
  // sums the replicas' shares.
  for (int64_t ch = 0; ch < c; ++ch) {
    l.params[0].grad[ch] = static_cast<float>(sums[c + ch]);
    l.params[1].grad[ch] = static_cast<float>(sums[ch]);
  }
  if (!in.dIn)
    return;
  {
    Charge sync(timers_, Category::Sync);
    allReduce(l.statsComm, sums.data(), 2 * c, MPI_DOUBLE, MPI_SUM);
  }
  KernelTimer k(timers_);
  cpu::batchNormBackwardData(n, c, hw, count, in.in, l.grad.data(),
                             l.mean.data(), l.invStd.data(),
                             l.params[0].value.data(), sums.data(),
                             sums.data() + c, in.dIn);
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
      copyRegion(e->in, b, l.value.data(), l.tile, b);
    }
}

void Program::backwardConcat(Layer &l) {
  KernelTimer k(timers_);
  for (Edge *e : l.inputs)
    if (e->hasBox && e->dIn) {
      Box b = inOutput(*e);
      copyRegion(l.grad.data(), l.tile, e->dIn, b, b);
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
  for (int64_t s = 0; s < r.samples; ++s)
    std::memcpy(l.value.data() + s * r.features, in.in + s * r.rowIn + r.skip,
                r.features * sizeof(float));
}

void Program::backwardFlatten(Layer &l) {
  Edge &in = *l.inputs[0];
  if (!in.dIn)
    return;
  KernelTimer k(timers_);
  FlattenRows r(l, in);
  std::fill(in.dIn, in.dIn + in.box.volume(), 0.0f);
  for (int64_t s = 0; s < r.samples; ++s)
    std::memcpy(in.dIn + s * r.rowIn + r.skip, l.grad.data() + s * r.features,
                r.features * sizeof(float));
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
  l.max.assign(n, -std::numeric_limits<float>::infinity());
  l.sum.assign(n, 0.0);
  {
    KernelTimer kt(timers_);
    cpu::softmaxPartialMax(n, k, logits.in, l.max.data());
  }
  {
    Charge sync(timers_, Category::Sync);
    allReduce(l.statsComm, l.max.data(), n, MPI_FLOAT, MPI_MAX);
  }
  {
    KernelTimer kt(timers_);
    cpu::softmaxPartialSum(n, k, logits.in, l.max.data(), l.sum.data());
  }
  {
    Charge sync(timers_, Category::Sync);
    allReduce(l.statsComm, l.sum.data(), n, MPI_DOUBLE, MPI_SUM);
  }
  KernelTimer kt(timers_);
  l.partialLoss = cpu::softmaxCrossEntropyPartialLoss(
      n, k, l.tile.lo[1], logits.in, labels.labels.data(), l.max.data(),
      l.sum.data());
}

void Program::backwardLoss(Layer &l) {
  Edge &logits = *l.inputs[0], &labels = *l.inputs[1];
  if (!logits.dIn) // logits straight from the images: nothing to train
    return;
  KernelTimer kt(timers_);
  cpu::softmaxCrossEntropyBackward(
      extent(l.tile, 0), extent(l.tile, 1), l.tile.lo[1], batch_, logits.in,
      labels.labels.data(), l.max.data(), l.sum.data(), logits.dIn);
}

} // namespace hdrt::exec
