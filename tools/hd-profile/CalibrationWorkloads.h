//===- CalibrationWorkloads.h - the layers calibrating a host ---*- C++ -*-===//
//
// The cost model's roofline has three figures per device: a dense rate, a
// memory rate and a launch cost. `hd-profile calibrate` measures them on
// the layers this picks, with the runtime's own kernels.
//
//===----------------------------------------------------------------------===//

#ifndef HD_TOOLS_HD_PROFILE_CALIBRATIONWORKLOADS_H
#define HD_TOOLS_HD_PROFILE_CALIBRATIONWORKLOADS_H

#include "hdrt/Profile.h"

namespace hd {

/// A 3x3 convolution of 64 channels (dense), a large ReLU (memory-bound)
/// and a ReLU of 8 values (launch).
hdrt::HostWorkloads calibrationWorkloads();

} // namespace hd

#endif // HD_TOOLS_HD_PROFILE_CALIBRATIONWORKLOADS_H
