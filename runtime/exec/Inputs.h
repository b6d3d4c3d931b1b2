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
/// rank reads, in the order of its inputs. Made once and reused: the
/// images' buffers are the memory the device uploads from fastest (a GPU's
/// page-locked memory), and no step allocates a batch.
struct HostBatch {
  std::vector<HostBuffer<float>> images;
  std::vector<std::vector<int32_t>> labels;
};

class Inputs {
public:
  Inputs(Network &network, Device &device, Timers &timers, int rank)
      : network_(network), device_(device), timers_(timers), rank_(rank) {}

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
  /// Whether the device makes `source`'s images itself (synthetic data on
  /// a device the host cannot write).
  bool imagesOnDevice(const InputSource &source) const {
    return &source == train_.get() && synthetic_;
  }
  void read(const InputSource &source, int64_t step, HostBatch &into) const;
  void upload(const InputSource &source, int64_t step, const HostBatch &batch);
  /// A batch buffer nothing reads or writes now: not the read-ahead's,
  /// and its last upload finished.
  HostBatch &freeBatch();

  Network &network_;
  Device &device_;
  Timers &timers_;
  int rank_;
  std::unique_ptr<InputSource> train_;
  std::unique_ptr<DatasetInput> eval_;
  int64_t trainSize_ = 0;
  /// The input boxes this rank reads.
  std::vector<Edge *> inputs_;
  int threads_ = 1; // that read one batch
  /// The synthetic training source, where the device makes its images.
  const SyntheticInput *synthetic_ = nullptr;
  /// Two batches: one read ahead while the other is uploaded.
  HostBatch batches_[2];
  std::future<void> ahead_;
  int64_t aheadStep_ = -1;
  int aheadBatch_ = 0; // the index of the batch read ahead
};

} // namespace hdrt::exec

#endif // HDRT_EXEC_INPUTS_H
