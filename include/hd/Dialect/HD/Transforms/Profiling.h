//===- Profiling.h - what hd-profile measures -------------------*- C++ -*-===//
//
// The measurements the search may need for a module on a device count:
// every layer's signature on the largest tile of each candidate
// configuration, once per distinct (signature, tile), with the request the
// runtime's profiler takes.
//
//===----------------------------------------------------------------------===//

#ifndef HD_DIALECT_HD_TRANSFORMS_PROFILING_H
#define HD_DIALECT_HD_TRANSFORMS_PROFILING_H

#include "hdrt/Profile.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace hd {

struct ProfileJob {
  std::string layer; // the first layer with this signature, for progress
  std::string op;
  std::string signature;
  std::vector<int64_t> tile;
  hdrt::LayerProfileRequest request;
};

/// Fails with a diagnostic on a module that is not a training graph of
/// layers the runtime can run.
mlir::FailureOr<std::vector<ProfileJob>> profileJobs(mlir::ModuleOp module,
                                                     int64_t devices);

} // namespace hd

#endif // HD_DIALECT_HD_TRANSFORMS_PROFILING_H
