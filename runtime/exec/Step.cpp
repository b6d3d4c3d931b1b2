//===- Step.cpp - one training step around the layers ---------------------===//
//
// The schedule the generated code calls: the step's inputs, each layer's
// forward and backward through its kind (exec/layers/), the transfers
// (Transfers), gradient syncs, the optimizer, and the step's loss, where a
// non-finite one is traced back to the first layer that produced it.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include "Errors.h"
#include "LayerImpl.h"
#include "Schedule.h"

#include "kernels/Sgd/SgdKernels.h"

#include "hdrt/hdrt.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>

namespace hdrt::exec {

/// The layer `id`, which the program now does `what` of (activity()).
Layer &Program::doing(int64_t id, const char *what) {
  Layer &l = network_.layer(id);
  activity_ = std::string(what) + " of layer '" + l.name + "'";
  return l;
}

void Program::stepBegin(int64_t step) {
  if (rank_ == options_.killRank && step + 1 == options_.killStep) {
    std::fprintf(stderr, "hd: test hook: rank %d kills itself at step %lld\n",
                 rank_, static_cast<long long>(step + 1));
    std::fflush(stderr);
    std::raise(SIGKILL);
  }
  context_.setStep(step);
  stepStart_ = MPI_Wtime();
  timers_.take();
  // --trace records the last step, when the kernels are warm.
  timers_.tracing = !options_.trace.empty() && step + 1 == options_.steps;
  timers_.origin = timers_.now();
  timers_.spans.clear();
  backwardBegun_ = false;
  updatedAll_ = false;
  transfers_.postReceives(/*forward=*/true);
  Charge charge(timers_, Category::Compute);
  stepInputs(step);
}

void Program::stepInputs(int64_t step) {
  inputs_.load(step, /*readAhead=*/!profiling_, lastStep());
  rankState_.startGradients();
}

void Program::forward(int64_t id) {
  Layer &l = doing(id, "the forward");
  Charge charge(timers_, Category::Compute, &l.name, " fwd");
  if (l.task < 0)
    return;
  for (Edge *e : l.inputs)
    transfers_.gatherLocal(*e);
  l.impl->forward(context_, l);
  transfers_.send(l);
}

void Program::backward(int64_t id) {
  Layer &l = doing(id, "the backward");
  if (!backwardBegun_) {
    backwardBegun_ = true;
    transfers_.postReceives(/*forward=*/false);
  }
  Charge charge(timers_, Category::Compute, &l.name, " bwd");
  if (l.task < 0)
    return;
  rankState_.touchGradient(l); // no reader on this rank wrote it: zeros
  transfers_.receiveGradients(l);
  for (Edge *e : l.inputs)
    rankState_.claimInputGradient(*e);
  l.impl->backward(context_, l);
  for (Edge *e : l.inputs)
    transfers_.scatterLocal(*e);
}

void Program::transferForward(int64_t id) {
  Edge &e = network_.edge(id);
  activity_ = "the transfer '" + e.name + "'";
  transfers_.run(e, /*forward=*/true);
}

void Program::transferBackward(int64_t id) {
  Edge &e = network_.edge(id);
  activity_ = "the backward transfer '" + e.name + "'";
  if (options_.dropTransferGradients && e.hasBox && e.dIn)
    device_->fill(e.dIn, e.box.volume(), 0.0f);
  transfers_.run(e, /*forward=*/false);
}

void Program::gradSync(int64_t id) {
  Layer &l = doing(id, "the gradient sync");
  Charge charge(timers_, Category::Sync, &l.name, " gradient sync");
  if (l.gradComm == MPI_COMM_NULL)
    throw Error("layer '" + l.name + "' has no replica groups to sync");
  if (l.gradComm == MPI_COMM_SELF || l.task < 0 ||
      options_.dropGradientSyncs)
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
  Layer &l = doing(id, "the update");
  Charge charge(timers_, Category::Compute, &l.name, " update");
  if (l.task < 0)
    return;
  // A GPU updates every parameter in one pass, at the first update of the
  // step: its gradient sums are in place for all once they are for one,
  // and a launch per layer costs more than the update of most layers.
  // The CPU updates each layer once its own sums are in, while the others'
  // still run.
  bool all = !device_->hostAccessible() && !profiling_;
  if (all && updatedAll_)
    return;
  auto firstTrained = std::find_if(l.params.begin(), l.params.end(),
                                   [](const Param &p) { return p.trained; });
  if (firstTrained == l.params.end() && !all)
    return;
  if (l.gradComm != MPI_COMM_SELF || all) {
    // The gradient sums may still run beside this: wait for this layer's,
    // or for all of them.
    Charge wait(timers_, Category::Sync, &l.name, " gradient wait");
    double start = MPI_Wtime();
    auto check = [&](int rc) {
      if (rc)
        throw Error("error " + std::to_string(rc) +
                    " in the gradient sync of '" + l.name + "'");
    };
    if (all)
      check(device_->waitGradients(nullptr));
    else
      for (Param &p : l.params)
        if (p.trained)
          check(device_->waitGradients(p.grad.data()));
    timers_.addGradientSyncExposed(MPI_Wtime() - start);
  }
  KernelTimer kernel(timers_);
  float lr = float(learningRate(options_, context_.step(), lastStep()));
  SgdKernels &sgd = kernelsOf<SgdKernels>(*device_);
  // A layer's trained parameters lie next to each other in the flat
  // buffers (RankState::allocateTrained): one pass over them.
  float *value = rankState_.values().data(),
        *grad = rankState_.gradients().data(),
        *velocity = rankState_.velocities().data();
  int64_t count = rankState_.values().size();
  if (!all) {
    value = firstTrained->value.data();
    grad = firstTrained->grad.data();
    velocity = firstTrained->velocity.data();
    count = 0;
    for (const Param &p : l.params)
      count += p.trained ? p.value.size() : 0;
  }
  if (count > 0)
    sgd.update(count, lr, float(options_.momentum), float(options_.weightDecay),
               options_.nesterov, value, grad, velocity);
  updatedAll_ = all;
}

/// The loss layer's summed loss over this rank's tile (0 without one):
/// read from the device, which waits for the forward pass.
double Program::tileLoss() {
  const Layer &loss = network_.layers().back();
  double value = 0;
  if (loss.task >= 0)
    loss.partialLoss.download(&value);
  return value;
}

void Program::stepEnd(int64_t step) {
  transfers_.finishSends();
  double partial = tileLoss(), total = 0;
  {
    Charge charge(timers_, Category::Sync);
    MPI_Allreduce(&partial, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  double loss = total / double(context_.batch());
  double seconds = MPI_Wtime() - stepStart_;
  TimerTotals totals = timers_.take();
  // Where the device does not time its gradient sums apart, they took what
  // the step waited for them.
  double sums = device_->takeGradientSyncSeconds();
  totals.gradientSync = sums >= 0 ? sums : totals.gradientSyncExposed;
  if (timers_.tracing) {
    timers_.spans.push_back(
        {"step " + std::to_string(step + 1), Category::Other, 0, seconds});
    reporter_.traced(timers_.spans);
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
        (io_.lastCheckpoint() >= 0
             ? "; the checkpoint of step " +
                   std::to_string(io_.lastCheckpoint()) + " is intact"
             : ""));
  reporter_.stepEnded(step, loss, seconds, totals);
  if (options_.checkpointEvery && (step + 1) % options_.checkpointEvery == 0)
    io_.checkpoint(step + 1);
  if (inputs_.evaluation() && options_.evalEvery &&
      (step + 1) % options_.evalEvery == 0)
    evaluate(step + 1);
}

/// Collective. Where this step's forward pass first produced a NaN or an
/// infinity, in program order: the images a layer reads, or a layer's
/// output. Every rank checks its own tiles, and the earliest wins.
std::string Program::firstNonFinite() {
  int64_t mine = INT64_MAX;
  const std::deque<Layer> &layers = network_.layers();
  for (size_t i = 0; i < layers.size() && mine == INT64_MAX; ++i) {
    const Layer &l = layers[i];
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
  const Layer &l = layers[size_t(first / 2)];
  return (first % 2 ? "the output of layer '" : "the images read by layer '") +
         l.name + "'";
}

} // namespace hdrt::exec
