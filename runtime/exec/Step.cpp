//===- Step.cpp - one training step around the layers ---------------------===//
//
// The schedule the generated code calls: the step's inputs, each layer's
// forward and backward through its kind (exec/layers/), gradient syncs, the
// optimizer, and the step's loss, where a non-finite one is traced back to
// the first layer that produced it. Transfers: exec/Transfers.cpp.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include "LayerImpl.h"
#include "Schedule.h"

#include "hdrt/hdrt.h"

#include <cmath>
#include <csignal>
#include <cstdio>

namespace hdrt::exec {

void Program::stepBegin(int64_t step) {
  if (rank_ == options_.killRank && step + 1 == options_.killStep) {
    std::fprintf(stderr, "hd: test hook: rank %d kills itself at step %lld\n",
                 rank_, static_cast<long long>(step + 1));
    std::fflush(stderr);
    std::raise(SIGKILL);
  }
  step_ = step;
  stepStart_ = MPI_Wtime();
  timers_.take();
  // --trace records the last step, when the kernels are warm.
  timers_.tracing = !options_.trace.empty() && step + 1 == options_.steps;
  timers_.origin = stepStart_;
  timers_.spans.clear();
  backwardBegun_ = false;
  postTransferReceives(/*forward=*/true);
  Charge charge(timers_, Category::Compute);
  stepInputs(step);
}

void Program::forward(int64_t id) {
  Layer &l = layer(id);
  activity_ = "the forward of layer '" + l.name + "'";
  Charge charge(timers_, Category::Compute, &l.name, " fwd");
  l.partialLoss = 0;
  if (l.task < 0)
    return;
  for (Edge *e : l.inputs)
    gatherLocal(*e);
  l.impl->forward(*this, l);
  sendTransfers(l);
}

void Program::backward(int64_t id) {
  Layer &l = layer(id);
  activity_ = "the backward of layer '" + l.name + "'";
  if (!backwardBegun_) {
    backwardBegun_ = true;
    postTransferReceives(/*forward=*/false);
  }
  Charge charge(timers_, Category::Compute, &l.name, " bwd");
  if (l.task < 0)
    return;
  touchGradient(l); // no reader on this rank wrote it: zeros
  receiveTransferGradients(l);
  for (Edge *e : l.inputs)
    claimInputGradient(*e);
  l.impl->backward(*this, l);
  for (Edge *e : l.inputs)
    scatterLocal(*e);
}

void Program::touchGradient(Layer &p) {
  if (!p.lazyGrad || p.gradWritten)
    return;
  device_->fill(p.grad.data(), p.grad.size(), 0.0f);
  p.gradWritten = true;
}

void Program::claimInputGradient(Edge &e) {
  e.writesGradInPlace = false;
  if (!e.hasBox || e.producer < 0 || e.gradAliased || e.explicitTransfer)
    return;
  Layer &p = layers_[e.producer];
  if (!p.lazyGrad)
    return;
  if (!p.gradWritten && e.mayWriteGradInPlace) {
    e.writesGradInPlace = true;
    p.gradWritten = true;
  } else {
    touchGradient(p);
  }
  e.dIn = e.writesGradInPlace ? p.grad.data() : e.dInStorage.data();
}

/// Combines a layer's partial statistics with the tasks that share them.
void Program::syncStatistics(Layer &l, void *data, int64_t count,
                             ElementType type, ReduceOp op) {
  Charge sync(timers_, Category::Sync);
  if (int rc = device_->allReduce(l.statsComm, data, count, type, op))
    throw Error("error " + std::to_string(rc) +
                " combining the statistics of '" + l.name + "'");
}

std::pair<Box, Box> localBoxes(const Layer &p, const Edge &e) {
  if (e.block == 1)
    return {p.tile, e.box};
  return {channelBlocked(p.tile, e.block), channelBlocked(e.box, e.block)};
}

void Program::gatherLocal(Edge &e) {
  if (!e.hasBox || e.inAliased || e.explicitTransfer || e.producer < 0)
    return;
  const Layer &p = layers_[e.producer];
  auto [tile, box] = localBoxes(p, e);
  device_->copyRegion(p.value.data(), tile, e.in, box, box);
}

void Program::scatterLocal(Edge &e) {
  if (!e.hasBox || e.gradAliased || e.writesGradInPlace ||
      e.explicitTransfer || e.producer < 0)
    return;
  Layer &p = layers_[e.producer];
  auto [tile, box] = localBoxes(p, e);
  device_->addRegion(e.dIn, box, p.grad.data(), tile, box);
}

void Program::gradSync(int64_t id) {
  Layer &l = layer(id);
  activity_ = "the gradient sync of layer '" + l.name + "'";
  Charge charge(timers_, Category::Sync, &l.name, " gradient sync");
  if (l.gradComm == MPI_COMM_NULL)
    throw Error("layer '" + l.name + "' has no replica groups to sync");
  if (l.gradComm == MPI_COMM_SELF || l.task < 0)
    return;
  double start = MPI_Wtime();
  for (Param &p : l.params) {
    if (!p.trained)
      continue;
    if (int rc = device_->allReduceGradients(l.gradComm, p.grad.data(),
                                             p.grad.size()))
      throw Error("error " + std::to_string(rc) + " in the gradient sync of '" +
                  l.name + "'");
  }
  timers_.addGradientSyncExposed(MPI_Wtime() - start);
}

void Program::sgdUpdate(int64_t id) {
  Layer &l = layer(id);
  activity_ = "the update of layer '" + l.name + "'";
  Charge charge(timers_, Category::Compute, &l.name, " update");
  if (l.task < 0)
    return;
  if (l.gradComm != MPI_COMM_SELF) {
    // The gradient sums may still run beside this: wait for this layer's.
    Charge wait(timers_, Category::Sync, &l.name, " gradient wait");
    double start = MPI_Wtime();
    for (Param &p : l.params)
      if (p.trained)
        if (int rc = device_->waitGradients(p.grad.data()))
          throw Error("error " + std::to_string(rc) +
                      " in the gradient sync of '" + l.name + "'");
    timers_.addGradientSyncExposed(MPI_Wtime() - start);
  }
  KernelTimer kernel(timers_);
  float lr = float(learningRate(options_, step_, lastStep()));
  for (Param &p : l.params)
    if (p.trained)
      device_->sgdMomentum(p.value.size(), lr, float(options_.momentum),
                           float(options_.weightDecay), options_.nesterov,
                           p.value.data(), p.grad.data(), p.velocity.data());
}

void Program::stepEnd(int64_t step) {
  finishTransferSends();
  double partial = layers_.back().partialLoss, total = 0;
  {
    Charge charge(timers_, Category::Sync);
    MPI_Allreduce(&partial, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  double loss = total / double(batch_);
  double seconds = MPI_Wtime() - stepStart_;
  stepTotals_.push_back(timers_.take());
  // Where the device does not time its gradient sums apart, they took what
  // the step waited for them.
  double sums = device_->takeGradientSyncSeconds();
  stepTotals_.back().gradientSync =
      sums >= 0 ? sums : stepTotals_.back().gradientSyncExposed;
  if (timers_.tracing) {
    timers_.spans.push_back(
        {"step " + std::to_string(step + 1), Category::Other, 0, seconds});
    traced_ = timers_.spans;
    timers_.tracing = false;
  }
  if (!std::isfinite(loss))
    throw CollectiveError(
        std::string("the loss is ") +
        (std::isnan(loss) ? "NaN"
         : loss > 0       ? "+inf"
                          : "-inf") +
        " at step " + std::to_string(step + 1) +
        "; the first non-finite values are in " + firstNonFinite() +
        ". Stopping without writing a checkpoint" +
        (lastCheckpoint_ >= 0
             ? "; the checkpoint of step " + std::to_string(lastCheckpoint_) +
                   " is intact"
             : ""));
  losses_.push_back(loss);
  stepMs_.push_back(seconds * 1e3);
  if (rank_ == 0 && !options_.quiet && (step + 1) % options_.logEvery == 0) {
    std::printf("step %lld loss %.6f %.1f images/s\n",
                static_cast<long long>(step + 1), loss,
                double(batch_) / seconds);
    std::fflush(stdout);
  }
  reportEpoch(step + 1);
  if (options_.checkpointEvery && (step + 1) % options_.checkpointEvery == 0)
    checkpoint(step + 1);
  if (eval_ && options_.evalEvery && (step + 1) % options_.evalEvery == 0)
    evaluate(step + 1);
}

/// Collective. Where this step's forward pass first produced a NaN or an
/// infinity, in program order: the images a layer reads, or a layer's
/// output. Every rank checks its own tiles, and the earliest wins.
std::string Program::firstNonFinite() {
  int64_t mine = INT64_MAX;
  for (size_t i = 0; i < layers_.size() && mine == INT64_MAX; ++i) {
    const Layer &l = layers_[i];
    for (const Edge *e : l.inputs)
      if (e->producer == HDRT_IMAGES && e->hasBox && e->in &&
          !device_->allFinite(e->in, e->box.volume()))
        mine = 2 * int64_t(i);
    if (mine == INT64_MAX && l.task >= 0 &&
        !device_->allFinite(l.value.data(), l.value.size()))
      mine = 2 * int64_t(i) + 1;
  }
  int64_t first = INT64_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  if (first == INT64_MAX)
    return "no layer's output (the loss overflowed)";
  const Layer &l = layers_[size_t(first / 2)];
  return (first % 2 ? "the output of layer '" : "the images read by layer '") +
         l.name + "'";
}

} // namespace hdrt::exec
