//===- Evaluate.cpp - the model's accuracy on held-out data ---------------===//
//
// An evaluation runs the compiled strategy's forward pass in inference
// mode (batch norm's running statistics, no dropout) over the whole
// --eval-data, batch by batch, in the order the generated step uses: each
// layer after the explicit transfers into it. The last batch is padded;
// the loss layer counts only real samples. Its time is not a step's.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include "LayerImpl.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace hdrt::exec {

void Program::evaluate(int64_t step) {
  training_ = false;
  double partialLoss = 0;
  Accuracy counted;
  const Layer &loss = layers_.back();
  for (int64_t batch = 0; batch < eval_->stepsPerEpoch(); ++batch) {
    try {
      loadBatch(readBatch(*eval_, batch));
    } catch (const data::DataError &e) {
      throw Error(std::string("reading the evaluation data: ") + e.what());
    }
    postTransferReceives(/*forward=*/true);
    for (Layer &l : layers_) {
      for (Edge *e : l.inputs)
        if (e->explicitTransfer)
          transferForward(e->id);
      forward(l.id);
    }
    finishTransferSends();
    partialLoss += loss.partialLoss;
    if (loss.task >= 0) {
      counted.samples += loss.accuracy.samples;
      counted.top1 += loss.accuracy.top1;
      counted.top5 += loss.accuracy.top5;
    }
  }
  training_ = true;
  double lossSum = 0;
  int64_t mine[3] = {counted.samples, counted.top1, counted.top5}, all[3];
  MPI_Allreduce(&partialLoss, &lossSum, 1, MPI_DOUBLE, MPI_SUM,
                MPI_COMM_WORLD);
  MPI_Allreduce(mine, all, 3, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  timers_.take(); // not a training step's time
  if (all[0] != eval_->dataset().size())
    throw CollectiveError("the evaluation counted " + std::to_string(all[0]) +
                " samples of " + std::to_string(eval_->dataset().size()));
  Evaluation &e = evaluations_.emplace_back();
  e.step = step;
  e.samples = all[0];
  e.loss = lossSum / double(all[0]);
  e.top1 = double(all[1]) / double(all[0]);
  e.top5 = double(all[2]) / double(all[0]);
  if (rank_ == 0) {
    std::printf("eval step %lld loss %.6f top1 %.4f top5 %.4f (%lld "
                "images)\n",
                static_cast<long long>(step), e.loss, e.top1, e.top5,
                static_cast<long long>(e.samples));
    std::fflush(stdout);
  }
}

namespace {

/// "1:02:03" or "2:03": a duration for people.
std::string clockText(double seconds) {
  long long s = static_cast<long long>(seconds + 0.5);
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof(text), "%lld:%02lld:%02lld", s / 3600,
                  s / 60 % 60, s % 60);
  else
    std::snprintf(text, sizeof(text), "%lld:%02lld", s / 60, s % 60);
  return text;
}

} // namespace

/// After a step that completes a pass over the training data: the pass's
/// mean loss and speed, and the time the run has left at that speed.
void Program::reportEpoch(int64_t step) {
  if (!trainSize_ || rank_ != 0)
    return;
  int64_t before = (step - 1) * batch_ / trainSize_,
          after = step * batch_ / trainSize_;
  if (after == before)
    return;
  // The steps of this epoch that ran in this process.
  int64_t first = std::max<int64_t>(before * trainSize_ / batch_, firstStep_);
  double loss = 0, seconds = 0;
  int64_t count = 0;
  for (int64_t s = first; s < step; ++s, ++count) {
    loss += losses_[size_t(s - firstStep_)];
    seconds += stepMs_[size_t(s - firstStep_)] / 1e3;
  }
  if (!count)
    return;
  // The run's epochs: up to the one its last step starts in (a step's
  // batch may spill a few samples into the next).
  int64_t epochs = (lastStep() - 1) * batch_ / trainSize_ + 1;
  double left = double(lastStep() - step) * seconds / double(count);
  std::printf("epoch %lld/%lld done at step %lld: mean loss %.6f, %.0f "
              "images/s, %s left\n",
              static_cast<long long>(after), static_cast<long long>(epochs),
              static_cast<long long>(step), loss / double(count),
              double(count * batch_) / seconds, clockText(left).c_str());
  std::fflush(stdout);
}

} // namespace hdrt::exec
