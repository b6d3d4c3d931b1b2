//===- CpuBackend.cpp - libhdrt's device: the host ------------------------===//

#include "hdrt/Device.h"

std::unique_ptr<hdrt::Device> hdrt::makeDevice(const DeviceOptions &options) {
  return makeCpuDevice(options);
}
