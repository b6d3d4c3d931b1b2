//===- LayerContext.h - what a layer kind sees of its rank ------*- C++ -*-===//
//
// A layer executor (exec/layers/) runs its kind's kernels on this rank's
// tile, and needs little else of the program: the device, the timers its
// kernels are charged to, the sums of statistics its tasks share, and the
// step's facts. This is all it gets, so that the step, the transfers, the
// inputs and the model's files can change without touching a kind.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_EXEC_LAYERCONTEXT_H
#define HDRT_EXEC_LAYERCONTEXT_H

#include "Timers.h"

#include "hdrt/Device.h"

#include <cstdint>

namespace hdrt::exec {

struct Layer;

class LayerContext {
public:
  LayerContext(Device &device, Timers &timers, uint64_t seed)
      : device_(device), timers_(timers), seed_(seed) {}

  Device &device() const { return device_; }
  /// What a kind's kernel calls are charged to (a KernelTimer around them).
  Timers &timers() const { return timers_; }
  /// Training (batch statistics, random masks) or inference (running
  /// statistics, no masks; the loss layer also counts its accuracy).
  bool training() const { return training_; }
  /// This step's index, from 0.
  int64_t step() const { return step_; }
  /// The global batch.
  int64_t batch() const { return batch_; }
  /// The seed every random stream of the run is keyed by (Streams.h).
  uint64_t seed() const { return seed_; }

  /// Combines a layer's partial statistics with the tasks that share them
  /// (its statsComm), in place; charged to sync time.
  void syncStatistics(const Layer &l, void *data, int64_t count,
                      ElementType type, ReduceOp op) const;

  void setTraining(bool training) { training_ = training; }
  void setStep(int64_t step) { step_ = step; }
  void setBatch(int64_t batch) { batch_ = batch; }

private:
  Device &device_;
  Timers &timers_;
  uint64_t seed_;
  bool training_ = true;
  int64_t step_ = 0, batch_ = 0;
};

} // namespace hdrt::exec

#endif // HDRT_EXEC_LAYERCONTEXT_H
