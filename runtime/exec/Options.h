//===- Options.h - the compiled program's command line ----------*- C++ -*-===//

#ifndef HDRT_EXEC_OPTIONS_H
#define HDRT_EXEC_OPTIONS_H

#include "hdrt/Device.h"

#include <cstdint>
#include <string>

namespace hdrt::exec {

struct Options {
  int64_t steps = 10;
  uint64_t seed = 1;
  double lr = 0.01, momentum = 0.9, weightDecay = 5e-4;
  std::string metrics;    // metrics JSON path (rank 0 writes it)
  std::string checkpoint; // checkpoint directory
  bool resume = false;
  int64_t checkpointEvery = 0; // 0: only at the end
  std::string data;            // raw images + labels; synthetic when empty
  std::string trace;           // Chrome trace of the last step
  bool quiet = false;          // no per-step lines
  DeviceOptions device;
  // Fault injection for tests: rank `killRank` kills itself (SIGKILL) at the
  // start of step `killStep`, as if the node had died.
  int killRank = -1;
  int64_t killStep = 0;
};

/// Parses argv. Returns false with a message on a bad flag; sets `help`
/// when the usage was asked for.
bool parseOptions(int argc, char **argv, Options &options, bool &help,
                  std::string &error);

/// The usage text, naming the program.
std::string usage(const char *program);

} // namespace hdrt::exec

#endif // HDRT_EXEC_OPTIONS_H
