//===- ModelJobs.h - what hd-profile measures of a model --------*- C++ -*-===//
//
// The measurements the search may need for a module on a device count:
// every layer's signature on the largest tile of each candidate
// configuration, once per distinct (signature, tile), as the runtime's
// profiler takes them (hdrt/Profile.h).
//
//===----------------------------------------------------------------------===//

#ifndef HD_TOOLS_HD_PROFILE_MODELJOBS_H
#define HD_TOOLS_HD_PROFILE_MODELJOBS_H

#include "hdrt/Profile.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace hd {

struct ModelJob {
  std::string layer; // the first layer with this signature, for progress
  std::string op;
  hdrt::ProfileJob job;
};

/// Fails with a diagnostic on a module that is not a training graph of
/// layers the runtime can run.
mlir::FailureOr<std::vector<ModelJob>> modelJobs(mlir::ModuleOp module,
                                                 int64_t devices);

} // namespace hd

#endif // HD_TOOLS_HD_PROFILE_MODELJOBS_H
