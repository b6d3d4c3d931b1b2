//===- ProfiledLayer.h - one layer alone in a program, to time --*- C++ -*-===//
//
// What the layer timings and the host calibration share: the one device
// every profiled layer runs on, and a request's layer alone in a program
// (task 0, its largest tile), its operands filled.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_PROFILE_PROFILEDLAYER_H
#define HDRT_PROFILE_PROFILEDLAYER_H

#include "exec/Program.h"

#include "hdrt/Profile.h"

#include <memory>

namespace hdrt {

/// One device for every layer profiled: making a GPU's handles and streams
/// costs more than timing a layer.
Device &profilingDevice();

/// The request's layer alone in a program, as task 0, its operands filled.
std::unique_ptr<exec::Program> profiledProgram(const LayerProfileRequest &r);

} // namespace hdrt

#endif // HDRT_PROFILE_PROFILEDLAYER_H
