//===- Evaluate.cpp - the model's accuracy on held-out data ---------------===//
//
// An evaluation runs the compiled strategy's forward pass in inference
// mode (running statistics, no random masks) over the whole
// --eval-data, batch by batch, in the order the generated step uses: each
// layer after the explicit transfers into it. The last batch is padded;
// the loss layer counts only real samples. Its time is not a step's.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include "Errors.h"

#include <string>

namespace hdrt::exec {

void Program::evaluate(int64_t step) {
  context_.setTraining(false);
  double partialLoss = 0;
  Accuracy counted;
  const DatasetInput &data = *inputs_.evaluation();
  const Layer &loss = network_.layers().back();
  for (int64_t batch = 0; batch < data.stepsPerEpoch(); ++batch) {
    inputs_.loadEvaluation(batch);
    transfers_.postReceives(/*forward=*/true);
    for (Layer &l : network_.layers()) {
      for (Edge *e : l.inputs)
        if (e->explicitTransfer)
          transferForward(e->id);
      forward(l.id);
    }
    transfers_.finishSends();
    partialLoss += tileLoss();
    if (loss.task >= 0) {
      counted.samples += loss.accuracy.samples;
      counted.top1 += loss.accuracy.top1;
      counted.top5 += loss.accuracy.top5;
    }
  }
  context_.setTraining(true);
  double lossSum = 0;
  int64_t mine[3] = {counted.samples, counted.top1, counted.top5}, all[3];
  MPI_Allreduce(&partialLoss, &lossSum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(mine, all, 3, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  timers_.take(); // not a training step's time
  if (all[0] != data.dataset().size())
    throw CollectiveError("the evaluation counted " + std::to_string(all[0]) +
                          " samples of " +
                          std::to_string(data.dataset().size()));
  Evaluation e;
  e.step = step;
  e.samples = all[0];
  e.loss = lossSum / double(all[0]);
  e.top1 = double(all[1]) / double(all[0]);
  e.top5 = double(all[2]) / double(all[0]);
  reporter_.evaluated(e);
}

} // namespace hdrt::exec
