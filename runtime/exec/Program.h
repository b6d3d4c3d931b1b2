//===- Program.h - one rank of a compiled program ---------------*- C++ -*-===//
//
// The generated code defines the network (Network) and then calls the step
// schedule one layer or transfer at a time. A Program runs that schedule
// over the parts that each do one job: what this rank keeps of the network
// (RankState), the transfer engine (Transfers), the input pipeline
// (Inputs), the model's files (ModelIO) and what the run reports
// (Reporter); each layer kind's code sees only its LayerContext.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_EXEC_PROGRAM_H
#define HDRT_EXEC_PROGRAM_H

#include "Inputs.h"
#include "LayerContext.h"
#include "ModelIO.h"
#include "Network.h"
#include "Options.h"
#include "RankState.h"
#include "Reporter.h"
#include "Timers.h"
#include "Transfers.h"

#include "hdrt/common/Groups.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hdrt::exec {

/// Ranks on one host share its cores: unless OMP_NUM_THREADS says
/// otherwise, each rank's kernels get cores / local ranks threads, and no
/// more than the cores the rank is bound to. Left to its defaults, libgomp
/// starts a thread per core even in a process bound to one core, and the
/// spinning threads made kernels up to 100x slower.
void pickThreads();

/// How hd-profile runs a program: this rank plays task 0, the largest tile,
/// of every layer, alone: no communicators, no replica checks. The per-step
/// work zeroes the layer's output gradient when `zeroOutputGradient`, as a
/// step does where its readers add into it.
struct Profiling {
  bool zeroOutputGradient = true;
};

class Program {
public:
  /// `device`: the rank's device, made for this library's backend when
  /// null (hd-profile shares one across many programs).
  Program(Options options, int64_t devices, std::string modelName,
          std::string modelHash, std::shared_ptr<Device> device = nullptr,
          std::optional<Profiling> profiling = std::nullopt);

  /// The definitions go here (the ABI), except the replica groups.
  Network &network() { return network_; }
  /// A layer's replica groups (hdrt_define_grad_sync). Collective.
  void defineGradSync(int64_t layer, const int64_t *groups, int64_t length);
  /// Sets up this rank after the definitions. Collective.
  void prepare();

  int64_t firstStep() const { return firstStep_; }
  int64_t lastStep() const { return options_.steps; }
  /// What the program is doing ("the forward of layer 'conv1'"), for
  /// errors of the device.
  const std::string &activity() const { return activity_; }

  // The schedule of one step.
  void stepBegin(int64_t step);
  void forward(int64_t layer);
  void transferForward(int64_t edge);
  void backward(int64_t layer);
  void transferBackward(int64_t edge);
  void gradSync(int64_t layer);
  void sgdUpdate(int64_t layer);
  void stepEnd(int64_t step);
  /// Evaluates when the last step is not evaluated yet, writes the final
  /// checkpoint, the ONNX export and the metrics; returns the exit code.
  int finish();

  // What hd-profile's timing uses besides the schedule.
  /// The per-step work around the layers: this step's images and labels
  /// where graph inputs are read, output gradients zeroed.
  void stepInputs(int64_t step);
  Device &device() { return *device_; }
  const Inputs &inputs() const { return inputs_; }
  const Options &options() const { return options_; }

private:
  Layer &doing(int64_t id, const char *what);
  MPI_Comm split(const std::vector<int64_t> &colorOfTask);
  /// split, as the parts that make communicators take it.
  SplitWorld splitWorld() {
    return [this](const std::vector<int64_t> &colorOfTask) {
      return split(colorOfTask);
    };
  }
  void checkOutputs();
  /// The loss, top-1 and top-5 of the model after `step` steps on the
  /// whole --eval-data, printed by rank 0.
  void evaluate(int64_t step);
  std::string firstNonFinite();
  double tileLoss();

  Options options_;
  std::shared_ptr<Device> device_;
  bool profiling_;
  int rank_;
  RankOptions rankOptions_;
  Timers timers_;
  /// The sets of ranks with a communicator, and this rank's ones (the
  /// communicators it made).
  GroupRegistry groups_;
  std::map<std::vector<int>, MPI_Comm> comms_;
  Network network_;
  LayerContext context_;
  RankState rankState_;
  Transfers transfers_;
  Inputs inputs_;
  ModelIO io_;
  Reporter reporter_;
  std::string activity_;
  int64_t firstStep_ = 0;
  double stepStart_ = 0;
  /// Whether this step's backward pass has begun (its receives posted).
  bool backwardBegun_ = false;
  /// Whether this step's update of every parameter at once has run.
  bool updatedAll_ = false;
};

} // namespace hdrt::exec

#endif // HDRT_EXEC_PROGRAM_H
