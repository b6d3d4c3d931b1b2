//===- CpuKernels.h - the CPU kernel sets for the tests ---------*- C++ -*-===//
//
// The kernel tests reach each layer kind's CPU kernels the way the executor
// does, through the registry (kernelsOf<Set>(device)), so that what they
// test is what a CPU program runs. One CPU device serves the whole process:
// its kernel sets keep state across calls (oneDNN primitives made once per
// shape), which the tests exercise too. Its memory is host memory, so a
// test may hand its kernels std::vector data.
//
//===----------------------------------------------------------------------===//

#ifndef HD_UNITTESTS_RUNTIME_CPUKERNELS_H
#define HD_UNITTESTS_RUNTIME_CPUKERNELS_H

#include "hdrt/Device.h"

#include <memory>

/// The process's CPU device, made on first use.
inline hdrt::Device &cpuDevice() {
  static const std::unique_ptr<hdrt::Device> device = [] {
    // The unit tests run without MPI. Overlapped gradient sums would ask
    // MPI for its thread level, which aborts before MPI_Init; no test sums
    // gradients across ranks.
    hdrt::DeviceOptions options;
    options.overlapSync = hdrt::DeviceOptions::SyncOverlap::Off;
    return hdrt::makeCpuDevice(options);
  }();
  return *device;
}

/// The CPU device's kernel set `Set` (an interface of runtime/kernels/).
template <typename Set> Set &cpuKernels() {
  return hdrt::kernelsOf<Set>(cpuDevice());
}

#endif // HD_UNITTESTS_RUNTIME_CPUKERNELS_H
