//===- Target.h - the machine, devices and strategy of a plan ---*- C++ -*-===//
//
// What the user names (a machine, a device count, a strategy, a profile
// database, a precision), checked and loaded before any planning starts, so
// that a bad name fails with one message and the planner holds only loaded
// values.
//
//===----------------------------------------------------------------------===//

#ifndef HD_STRATEGY_TARGET_H
#define HD_STRATEGY_TARGET_H

#include "hd/CostModel/Machine.h"
#include "hd/CostModel/ProfileDB.h"
#include "hd/Strategy/StrategyKind.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace hd {

/// The target as the user names it (the pass's options).
struct TargetOptions {
  std::string machine = "cpu"; // a built-in or a machine JSON file
  int64_t devices = -1;        // -1: every device of the machine
  std::string strategy = "layerwise";
  std::string profile; // a profile database; overrides the machine's
  std::string precision = "fp32";    // fp32, bf16 or fp16
  std::string gradientSync = "fp32"; // the type gradients are summed in
};

/// The target, checked and loaded.
struct Target {
  Machine machine;
  int64_t devices = 1;
  StrategyKind strategy = StrategyKind::Layerwise;
  ProfileDB profile;
  Precision precision = Precision::F32;
  Precision gradientSync = Precision::F32;
};

llvm::Expected<Target> resolveTarget(const TargetOptions &options);

} // namespace hd

#endif // HD_STRATEGY_TARGET_H
