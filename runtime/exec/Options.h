//===- Options.h - the compiled program's command line ----------*- C++ -*-===//

#ifndef HDRT_EXEC_OPTIONS_H
#define HDRT_EXEC_OPTIONS_H

#include "hdrt/Device.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hdrt::exec {

enum class LrSchedule { Constant, Step, Cosine };

struct Options {
  // How long: --steps, or --epochs of the training data.
  int64_t steps = 10;
  bool stepsGiven = false;
  double epochs = 0; // 0: --steps decides
  uint64_t seed = 1;

  // The optimizer.
  double lr = 0.01, momentum = 0.9, weightDecay = 5e-4;
  bool nesterov = false;
  LrSchedule schedule = LrSchedule::Constant;
  std::vector<int64_t> milestones; // step: where lr drops (default 1/2, 3/4)
  double gamma = 0.1;              // step: the factor at each milestone
  int64_t warmup = 0;              // linear warm-up steps

  // Data: the format is found from the file; synthetic without --data.
  std::string data, labels;
  std::string evalData, evalLabels;
  int64_t evalEvery = 0;         // 0: only after the last step
  std::vector<double> mean, std; // per channel, after uint8 -> [0, 1]
  bool shuffle = false;
  int64_t dataThreads = 0;  // threads reading a batch; 0: the rank's cores
  bool flip = false;        // --augment flip
  int64_t cropPadding = -1; // --augment crop[=P]; -1: no crop

  // Weights in and out.
  std::string init;       // an ONNX model or an hd checkpoint
  std::string exportOnnx; // the source model with the trained weights

  std::string metrics;    // metrics JSON path (rank 0 writes it)
  std::string checkpoint; // checkpoint directory
  bool resume = false;
  int64_t checkpointEvery = 0; // 0: only at the end
  std::string trace;           // Chrome trace of the last step
  int64_t logEvery = 1;        // print every K-th step's line
  bool quiet = false;          // no step, data or weights lines
  /// Activation tiles between layers in the device's blocked layout where
  /// every reader takes it (RankState::chooseLayouts); off: NCHW throughout.
  bool blockedLayouts = true;
  /// Transfers' messages posted as soon as their buffers or data exist
  /// (exec/Transfers.cpp); off: each runs whole at its call.
  bool earlyTransfers = true;
  DeviceOptions device;
  // Fault injection for tests: rank `killRank` kills itself (SIGKILL) at the
  // start of step `killStep`, as if the node had died.
  int killRank = -1;
  int64_t killStep = 0;
  // Negative controls for the comparison tests: every gradient sync
  // skipped, or every explicit transfer's gradient zeroed before it goes
  // back. A run with either must differ from one without.
  bool dropGradientSyncs = false, dropTransferGradients = false;
};

/// Parses argv. Returns false with a message on a bad flag; sets `help`
/// when the usage was asked for.
bool parseOptions(int argc, char **argv, Options &options, bool &help,
                  std::string &error);

/// The usage text, naming the program.
std::string usage(const char *program);

} // namespace hdrt::exec

#endif // HDRT_EXEC_OPTIONS_H
