//===- Prepare.cpp - what this rank keeps of the program ------------------===//
//
// After the definitions, every rank sets up its own part: the tile of each
// layer it has a task in, the kind's geometry and buffers, the parameter
// shards and their initial values, the input box of each of its tasks
// (checked against the compiled transfer plan), and the communicators of
// the groups it belongs to.
//
//===----------------------------------------------------------------------===//

#include "RankState.h"

#include "Errors.h"
#include "LayerImpl.h"
#include "Streams.h"

#include "hdrt/Random.h"
#include "hdrt/hdrt.h"

#include <algorithm>
#include <cctype>

namespace hdrt::exec {

namespace {

std::string boxText(const Box &b) {
  std::string s = "[";
  for (int d = 0; d < b.rank; ++d)
    s += (d ? ", " : "") + std::to_string(b.lo[d]) + ":" +
         std::to_string(b.hi[d]);
  return s + "]";
}

} // namespace

//===----------------------------------------------------------------------===//
// Preparation: geometry, buffers, communicators, parameters
//===----------------------------------------------------------------------===//

int64_t RankState::prepare(LayerContext &ctx, const RankOptions &options) {
  options_ = options;
  if (network_.layers().empty())
    throw Error("the program defines no layers");
  for (Layer &l : network_.layers())
    for (size_t i = 0; i < l.inputs.size(); ++i)
      if (!l.inputs[i])
        throw Error("operand " + std::to_string(i) + " of layer '" + l.name +
                    "' is not defined");
  const Layer &loss = network_.layers().back();
  if (!loss.impl->isLoss() && !options_.profiling)
    throw Error("the program must end with its loss layer");
  ctx.setBatch(loss.out.shape[0]);
  for (Layer &l : network_.layers())
    prepareLayer(ctx, l);
  allocateTrained();
  for (Edge &e : network_.edges())
    prepareEdge(e);
  chooseLayouts();
  fuseRelus();
  for (Edge &e : network_.edges())
    if (e.gradAliased && e.consumer->impl->writesWholeInputGradients())
      network_.layers()[e.producer].zeroGrad = false;
  // Several readers: zeroing up front and adding every reader's gradient
  // in costs a write and a read-modify-write of the tile more than letting
  // the first reader write it.
  for (Layer &l : network_.layers())
    if (l.task >= 0 && l.consumers > 1 && !options_.profiling) {
      l.lazyGrad = true;
      l.zeroGrad = false;
    }
  for (Edge &e : network_.edges())
    e.mayWriteGradInPlace = e.producer >= 0 && e.inAliased &&
                            network_.layers()[e.producer].lazyGrad &&
                            e.consumer->impl->writesWholeInputGradients();
  // A profiled layer has no readers here: its output gradient stands in
  // for what they wrote.
  if (options_.profiling)
    for (Layer &l : network_.layers())
      l.zeroGrad = options_.profileZeroesGradient;
  return loss.out.shape[0];
}

void RankState::prepareLayer(LayerContext &ctx, Layer &l) {
  if (rank_ < l.out.tasks()) {
    l.task = rank_;
    l.tile = l.out.tile(l.task);
  }
  // A groups' communicator for the layer-internal reductions: the tasks
  // with the same block indices along the dimensions the kind names (batch
  // norm: its channels; the loss: its samples).
  if (unsigned dims = layerKindInfo(l.descriptor.kind).statisticsPerDims;
      dims && !options_.profiling) {
    std::vector<int64_t> colorOfTask(size_t(l.out.tasks()), 0);
    for (int64_t t = 0; t < l.out.tasks(); ++t)
      for (int d = 0; d < l.out.rank; ++d)
        if ((dims >> d) & 1)
          colorOfTask[size_t(t)] =
              colorOfTask[size_t(t)] * l.out.degrees[d] + l.out.blockOf(t, d);
    l.statsComm = split_(colorOfTask);
  }
  l.impl->prepare(ctx, l);
  if (l.task >= 0 && !l.impl->isLoss()) {
    l.value.assign(device_, l.tile.volume());
    l.grad.assign(device_, l.tile.volume());
  }
  prepareParams(l);
}

/// Every trained parameter of this rank in one allocation each for its
/// values, gradients and momenta, in the order backward produces the
/// gradients (the last layer's first): the gradient sums take consecutive
/// layers' small gradients as one contiguous bucket, summed in place, and
/// an update covers a layer's parameters, or all of them, in one pass.
void RankState::allocateTrained() {
  std::vector<Param *> trained;
  int64_t total = 0;
  for (auto l = network_.layers().rbegin(); l != network_.layers().rend(); ++l)
    if (l->task >= 0)
      for (Param &p : l->params)
        if (p.trained) {
          trained.push_back(&p);
          total += p.box.volume();
        }
  values_.assign(device_, total);
  gradients_.assign(device_, total);
  velocities_.assign(device_, total);
  int64_t at = 0;
  for (Param *p : trained) {
    int64_t n = p->box.volume();
    p->value = Buffer<float>::view(device_, values_.data() + at, n);
    p->grad = Buffer<float>::view(device_, gradients_.data() + at, n);
    p->velocity = Buffer<float>::view(device_, velocities_.data() + at, n);
    at += n;
    initialize(*p);
  }
}

/// Draws the parameter's initial values by global index, so every split
/// starts from the same values.
void RankState::initialize(Param &p) {
  std::vector<float> host(size_t(p.value.size()));
  for (size_t j = 0; j < host.size(); ++j)
    host[j] = p.init.offset +
              p.init.bound * (2.0f * uniform(options_.seed, p.init.stream,
                                             p.init.first + j) -
                              1.0f);
  p.value.upload(host.data());
}

void RankState::prepareParams(Layer &l) {
  std::vector<ParamSpec> specs = l.impl->params(l);
  if (specs.empty())
    return;
  int64_t c0 = l.task >= 0 ? l.tile.lo[1] : 0;
  int64_t c1 = l.task >= 0 ? l.tile.hi[1] : 0;
  bool first = l.task >= 0;
  for (int d = 0; d < l.out.rank && first; ++d)
    if (d != 1 && l.out.blockOf(l.task, d) != 0)
      first = false;
  for (size_t i = 0; i < specs.size(); ++i) {
    Param &p = l.params.emplace_back();
    // Checkpoint names are whitespace-free words.
    p.suffix = specs[i].suffix;
    p.name = l.name + "." + p.suffix;
    for (char &ch : p.name)
      if (std::isspace(static_cast<unsigned char>(ch)))
        ch = '_';
    p.shape = specs[i].shape;
    p.writes = first;
    p.trained = specs[i].trained;
    if (l.task < 0)
      continue;
    p.box.rank = static_cast<int>(p.shape.size());
    for (int d = 0; d < p.box.rank; ++d)
      p.box.hi[d] = p.shape[d];
    p.box.lo[0] = c0;
    p.box.hi[0] = c1;
    int64_t row = 1;
    for (size_t d = 1; d < p.shape.size(); ++d)
      row *= p.shape[d];
    p.init = {specs[i].offset, specs[i].bound, streamOf(kWeights, l.id, i),
              p.box.lo[0] * row};
    if (p.trained)
      continue; // allocateTrained
    p.value.assign(device_, p.box.volume());
    initialize(p);
  }
  // Frozen tensors (statistics, buffers) have no gradient to sync.
  bool trains = std::any_of(specs.begin(), specs.end(),
                            [](const ParamSpec &s) { return s.trained; });
  int64_t replicas = l.out.tasks() / l.out.degrees[1];
  if (trains && replicas > 1 && l.gradComm == MPI_COMM_NULL &&
      !options_.profiling)
    throw Error("the parameters of layer '" + l.name + "' have " +
                std::to_string(replicas) +
                " replicas but the program never syncs their gradients " +
                "(run --hd-insert-transfers before lowering)");
}

void RankState::prepareEdge(Edge &e) {
  Layer &c = *e.consumer;
  // What this device sends must be in its producer tile.
  for (const mpi::Move &m : e.plan) {
    const Layer &p = network_.layers()[e.producer];
    if (m.src == rank_ && (p.task < 0 || !p.tile.contains(m.box)))
      throw Error("the transfer from '" + p.name + "' sends " + boxText(m.box) +
                  " from device " + std::to_string(rank_) +
                  ", which does not hold it");
  }
  if (c.task < 0) {
    for (const mpi::Move &m : e.plan)
      if (m.dst == rank_)
        throw Error("a transfer into '" + c.name +
                    "' sends to a device without a task");
    return;
  }
  Box whole;
  whole.rank = e.source.rank;
  for (int d = 0; d < whole.rank; ++d)
    whole.hi[d] = e.source.shape[d];
  Box &b = e.box;
  b = c.impl->inputBox(c, e, whole);
  // Loops over n, c, h, w see one row and column in a 2-D tensor.
  for (int d = b.rank; d < 4; ++d) {
    b.lo[d] = 0;
    b.hi[d] = 1;
  }
  e.hasBox = b.volume() > 0;
  if (e.producer >= 0)
    checkPlan(e);
  if (!e.hasBox)
    return;
  if (e.producer == HDRT_LABELS) {
    e.labels.assign(b.volume(), 0);
    e.deviceLabels.assign(device_, b.volume());
    return;
  }
  if (e.producer == HDRT_IMAGES) {
    e.inStorage.assign(device_, b.volume());
    e.in = e.inStorage.data();
    if (e.wantsGradient) {
      e.dInStorage.assign(device_, b.volume());
      e.dIn = e.dInStorage.data();
    }
    return;
  }
  Layer &p = network_.layers()[e.producer];
  // Read the producer's tile in place when it is exactly the box: readers
  // only read it. Its gradient too when nothing else reads it; with other
  // readers each writes a gradient of its own, which backward adds in.
  // Else keep a copy of the box and of its gradient.
  e.inAliased = !e.explicitTransfer && p.task >= 0 && sameBox(p.tile, b);
  e.gradAliased = e.inAliased && p.consumers == 1;
  if (e.inAliased) {
    e.in = p.value.data();
  } else {
    e.inStorage.assign(device_, b.volume());
    e.in = e.inStorage.data();
  }
  if (e.gradAliased) {
    e.dIn = p.grad.data();
  } else {
    e.dInStorage.assign(device_, b.volume());
    e.dIn = e.dInStorage.data();
  }
}

/// The compiled plan and this runtime's boxes must agree: the input box is
/// exactly what this device holds of it plus what the plan sends here, in
/// disjoint pieces (else a transfer would write outside its buffer or leave
/// a hole).
void RankState::checkPlan(const Edge &e) const {
  const Layer &c = *e.consumer, &p = network_.layers()[e.producer];
  const Box &b = e.box;
  std::vector<Box> pieces;
  if (p.task >= 0 && e.hasBox)
    if (Box local = intersect(p.tile, b); local.volume() > 0)
      pieces.push_back(local);
  for (const mpi::Move &m : e.plan)
    if (m.dst == rank_) {
      if (!e.hasBox || !b.contains(m.box))
        throw Error("the transfer into '" + c.name + "' sends " +
                    boxText(m.box) + " to device " + std::to_string(rank_) +
                    ", outside its input box " + boxText(b));
      pieces.push_back(m.box);
    }
  int64_t covered = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    covered += pieces[i].volume();
    for (size_t j = 0; j < i; ++j)
      if (Box twice = intersect(pieces[i], pieces[j]); twice.volume() > 0)
        throw Error("the input box " + boxText(b) + " of '" + c.name +
                    "' on device " + std::to_string(rank_) + " gets " +
                    boxText(twice) + " twice");
  }
  int64_t needed = e.hasBox ? b.volume() : 0;
  if (covered != needed)
    throw Error("the input box " + boxText(b) + " of '" + c.name +
                "' on device " + std::to_string(rank_) + " gets " +
                std::to_string(covered) + " of its " + std::to_string(needed) +
                " elements from '" + p.name + "'" +
                (e.explicitTransfer ? std::string("")
                                    : " (is an hd.transfer missing?)"));
}

} // namespace hdrt::exec
