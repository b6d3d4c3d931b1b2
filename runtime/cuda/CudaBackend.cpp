//===- CudaBackend.cpp - libhdrt_cuda's device: a GPU ---------------------===//

#include "hdrt/Device.h"

std::unique_ptr<hdrt::Device>
hdrt::makeDevice(const DeviceOptions &options) {
  return makeCudaDevice(options);
}
