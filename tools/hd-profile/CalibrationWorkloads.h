//===- CalibrationWorkloads.h - the layers calibrating a device -*- C++ -*-===//
//
// The cost model's roofline has three figures per device: a dense rate, a
// memory rate and a launch cost. `hd-profile calibrate` measures them on
// the layers this picks, with the runtime's own kernels, and so does
// `hdrt-profile calibrate` where there is no MLIR (a GPU machine).
//
//===----------------------------------------------------------------------===//

#ifndef HD_TOOLS_HD_PROFILE_CALIBRATIONWORKLOADS_H
#define HD_TOOLS_HD_PROFILE_CALIBRATIONWORKLOADS_H

#include "hdrt/Profile.h"

#include <string>

namespace hd {

/// For a device of `backend` ("cpu", "cuda"): a 3x3 convolution (dense),
/// a large ReLU (memory-bound) and a ReLU of 8 values (launch), larger on
/// a GPU, which small layers leave mostly idle.
hdrt::HostWorkloads calibrationWorkloads(const std::string &backend);

} // namespace hd

#endif // HD_TOOLS_HD_PROFILE_CALIBRATIONWORKLOADS_H
