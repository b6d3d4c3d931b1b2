//===- Inputs.h - each step's images and labels, read ahead -----*- C++ -*-===//
//
// The input pipeline: every task that reads a graph input loads its own box
// of it from an InputSource (InputSource.h): the --data set, or synthetic
// data that can be learned. Data sets are opened, and every label checked
// against the model, before the first step. While a step trains, a
// background thread reads the next step's boxes into host memory; the step
// waits only for what is not ready yet (the metrics' `input_ms`).
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_EXEC_INPUTS_H
#define HDRT_EXEC_INPUTS_H

#include "InputSource.h"
#include "Network.h"
#include "Timers.h"

#include <future>
#include <memory>
#include <vector>

namespace hdrt::exec {

/// A step's images and labels on the host: one buffer per input box this
/// rank reads, in the order of its inputs.
struct HostBatch {
  std::vector<std::vector<float>> images;
  std::vector<std::vector<int32_t>> labels;
};

class Inputs {
public:
  Inputs(Network &network, Timers &timers, int rank)
      : network_(network), timers_(timers), rank_(rank) {}

  /// Opens --data and --eval-data for a global batch of `batch` and checks
  /// them against the model (every rank); with --epochs, sets
  /// options.steps. Collective.
  void open(Options &options, int64_t batch);
  /// Step `step`'s batch into the input boxes: what the previous step read
  /// ahead, or read now. Then, with `readAhead` and a step after this one
  /// up to `lastStep`, reads that one's while this one trains.
  void load(int64_t step, bool readAhead, int64_t lastStep);
  /// Batch `index` of the evaluation data into the input boxes.
  void loadEvaluation(int64_t index);

  /// The training source (synthetic without --data).
  const InputSource &training() const { return *train_; }
  /// The evaluation data, or null without --eval-data.
  const DatasetInput *evaluation() const { return eval_.get(); }
  /// Samples in --data; 0 for synthetic data.
  int64_t trainingSize() const { return trainSize_; }

private:
  HostBatch read(const InputSource &source, int64_t step) const;
  void upload(const HostBatch &batch);

  Network &network_;
  Timers &timers_;
  int rank_;
  std::unique_ptr<InputSource> train_;
  std::unique_ptr<DatasetInput> eval_;
  int64_t trainSize_ = 0;
  /// The input boxes this rank reads.
  std::vector<Edge *> inputs_;
  int threads_ = 1; // that read one batch
  std::future<HostBatch> ahead_;
  int64_t aheadStep_ = -1;
};

} // namespace hdrt::exec

#endif // HDRT_EXEC_INPUTS_H
