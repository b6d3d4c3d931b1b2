//===- Kernels.h - each layer kind's kernels, found by backend --*- C++ -*-===//
//
// A layer kind's kernels live in one folder, runtime/kernels/<Kind>/: a
// header that declares them once, as an interface derived from KernelSet,
// and one implementation per backend (<Kind>Cpu.cpp, <Kind>Cuda.cu) that
// registers itself here under its backend's name. The executor asks for a
// kind's kernels on its device (kernelsOf<Set>(device)), and
// the device makes them on first use from what its backend registered. So
// the device classes name no layer kind, and adding a kind adds files
// without editing a list.
//
// A set lives as long as its device and may keep state across calls
// (cuDNN plans, scratch memory, a pinned staging buffer).
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_KERNELS_H
#define HDRT_KERNELS_H

#include <memory>
#include <type_traits>

namespace hdrt {

class Device;

/// The kernels of one layer kind (or of the optimizer) on one device. Each
/// interface names itself with `static constexpr const char *kName`.
class KernelSet {
public:
  virtual ~KernelSet() = default;
};

/// Makes a backend's implementation of one interface for `device`.
using KernelFactory = std::unique_ptr<KernelSet> (*)(Device &device);

/// Records that backend `backend` ("cpu", "cuda": Device::backend) makes
/// the interface named `set` with `make`; returns true, for the static
/// registrar HDRT_REGISTER_KERNELS defines.
bool registerKernels(const char *set, const char *backend, KernelFactory make);

/// How backend `backend` makes the interface named `set`; null when it
/// registered none.
KernelFactory findKernels(const char *set, const char *backend);

/// A small number for the interface named `set`, the same on every device:
/// where a device keeps its set.
int kernelSetSlot(const char *set);

/// Makes `Impl` for `device`: from the device where it keeps some of it
/// (a stream, library handles), else from nothing.
template <typename Impl>
std::unique_ptr<KernelSet> makeKernelSet(Device &device) {
  if constexpr (std::is_constructible_v<Impl, Device &>)
    return std::make_unique<Impl>(device);
  else
    return std::make_unique<Impl>();
}

/// `Impl` is backend `Backend`'s implementation of interface `Set`. At
/// namespace scope, once per pair.
#define HDRT_REGISTER_KERNELS(Set, Backend, Impl)                              \
  [[maybe_unused]] static const bool hdrtRegistered##Impl =                    \
      ::hdrt::registerKernels(Set::kName, Backend,                             \
                              &::hdrt::makeKernelSet<Impl>)

} // namespace hdrt

#endif // HDRT_KERNELS_H
