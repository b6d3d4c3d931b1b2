//===- Kernels.cpp - the registry of each backend's kernel sets -----------===//
//
// Filled by static registrars while the backend library loads, read when a
// device makes a set on its first use; both on one thread.
//
//===----------------------------------------------------------------------===//

#include "hdrt/Kernels.h"

#include <map>
#include <string>
#include <utility>

namespace hdrt {

namespace {

/// Function-local, so that it exists before any registrar runs, whatever
/// the order of static initialization.
std::map<std::pair<std::string, std::string>, KernelFactory> &registry() {
  static std::map<std::pair<std::string, std::string>, KernelFactory> r;
  return r;
}

std::map<std::string, int> &slots() {
  static std::map<std::string, int> s;
  return s;
}

} // namespace

bool registerKernels(const char *set, const char *backend, KernelFactory make) {
  registry()[{set, backend}] = make;
  return true;
}

KernelFactory findKernels(const char *set, const char *backend) {
  auto it = registry().find({set, backend});
  return it == registry().end() ? nullptr : it->second;
}

int kernelSetSlot(const char *set) {
  auto [it, added] = slots().emplace(set, int(slots().size()));
  return it->second;
}

} // namespace hdrt
