//===- Device.h - where a rank's tensors live and work runs -----*- C++ -*-===//
//
// One rank drives one device: the host's cores (oneDNN kernels, MPI
// messages) or a GPU (cuDNN, cuBLAS, NCCL). The executor (exec/) keeps the
// program's structure on the host and asks its Device for every operation
// on tensor data, so the step, the transfer plans, the replica groups and
// the checkpoints are the same code on every backend.
//
// A Device is what is truly the device's: its memory, the order of its work,
// the copies between tensor boxes, the layout its kernels prefer, and the
// communication between ranks. The layer kinds' kernels are not its
// methods: each kind declares them in runtime/kernels/<Kind>/, each backend
// registers its implementation (hdrt/Kernels.h), and the executor finds
// them with kernelsOf<Set>(device).
//
// Every float, double and int32 pointer a Device method or a kernel takes
// is device memory from allocate(), unless its name says host. Work may run
// asynchronously; fence() waits for all of it, and methods that return a
// value to the host (allFinite, the loss) wait themselves.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_DEVICE_H
#define HDRT_DEVICE_H

#include "hdrt/Box.h"
#include "hdrt/Kernels.h"
#include "hdrt/mpi/Exchange.h"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace hdrt {

/// An error of the device or its libraries; the message names the call.
struct DeviceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class ReduceOp { Sum, Max };

struct DeviceOptions {
  /// GPUs: convolutions may use TF32 tensor cores (PyTorch's default for
  /// cuDNN); off, they compute in full fp32, as the CPU does.
  bool tf32 = true;
  /// CPU: whether gradient sums run on a thread of their own beside the
  /// backward pass (hdrt/mpi/GradientSync.h). Auto: where a rank's kernels
  /// have at least two cores, so that the thread's copying does not take
  /// the only one (on a rank with one core it costs more than it hides).
  enum class SyncOverlap { Auto, On, Off } overlapSync = SyncOverlap::Auto;
  /// GPUs: each convolution shape's algorithms are the fastest cuDNN
  /// times (as PyTorch's cudnn.benchmark), or its heuristic's choice.
  bool findConvAlgorithms = true;
  /// GPUs: print each convolution shape's algorithms and workspace.
  bool logConvAlgorithms = false;
  /// GPUs: a wait on the device longer than this ends the job with an
  /// error (0: never); NCCL's asynchronous errors end it at once.
  double watchdogSeconds = 50;
};
enum class ElementType { F32, F64 };

/// The bytes a device holds now and at its high-water mark.
struct MemoryCounter {
  int64_t inUse = 0, peak = 0;
  void allocated(size_t bytes) {
    inUse += int64_t(bytes);
    peak = inUse > peak ? inUse : peak;
  }
  void released(size_t bytes) { inUse -= int64_t(bytes); }
};

class Device {
public:
  virtual ~Device() = default;

  /// "cpu" or "cuda": the backend a profile database entry records.
  virtual const char *backend() const = 0;
  /// This device, for profile keys and reports ("NVIDIA H200", ...).
  virtual std::string describe() const = 0;
  /// Whether the host may read and write device memory directly (the CPU
  /// device): inputs are then produced in place rather than staged.
  virtual bool hostAccessible() const { return false; }
  /// The channel block of the activation layout the device's kernels run
  /// fastest on: 8 or 16 for nChw8c / nChw16c (oneDNN on AVX2 / AVX-512),
  /// 1 where plain NCHW is the kernels' own layout (cuDNN).
  virtual int64_t channelBlock() const { return 1; }

  //===--- Memory
  //----------------------------------------------------------===//
  /// Zeroed memory for `bytes`; freed by release with the same size. Never
  /// null for bytes > 0.
  virtual void *allocate(size_t bytes) = 0;
  virtual void release(void *memory, size_t bytes) = 0;
  /// The most bytes this device held at once: its allocations and the
  /// kernels' own scratch memory (--metrics' peak_mem_bytes).
  int64_t peakBytes() const { return memory_.peak; }
  /// Host memory of `bytes` the device copies from and to fastest (a GPU's
  /// page-locked memory), for buffers a run keeps and reuses: its
  /// allocation is slow. Freed by releaseHost with the same size.
  virtual void *allocateHost(size_t bytes) { return ::operator new(bytes); }
  virtual void releaseHost(void *memory, size_t bytes) {
    ::operator delete(memory);
  }
  /// From host memory. From allocateHost's memory, the copy may still read
  /// `host` after it returns, until finishUploads; from other memory, not.
  virtual void upload(void *dst, const void *host, size_t bytes) = 0;
  /// Waits until every upload issued so far has read its host memory.
  virtual void finishUploads() {}
  virtual void download(void *host, const void *src, size_t bytes) = 0;
  /// Waits until every operation issued so far has finished.
  virtual void fence() = 0;
  /// An asynchronous device's timing without waits: a mark recorded in its
  /// work order now (a CUDA event), an index valid until clearMarks.
  virtual int64_t markTime() {
    throw DeviceError(std::string("the ") + backend() +
                      " device marks no times");
  }
  /// Seconds of the device's work between two marks; waits for `to`.
  virtual double secondsBetween(int64_t from, int64_t to) { return 0; }
  virtual void clearMarks() {}
  /// Writes back and drops all of this device's memory from its caches
  /// (profiling: the cache state a layer's backward finds in a step).
  virtual void evictFromCaches() {}

  virtual void fill(float *dst, int64_t count, float value) = 0;
  /// As hdrt::copyRegion and addRegion (Box.h), on device buffers.
  virtual void copyRegion(const float *src, const Box &srcBox, float *dst,
                          const Box &dstBox, const Box &region) = 0;
  virtual void addRegion(const float *src, const Box &srcBox, float *dst,
                         const Box &dstBox, const Box &region) = 0;
  /// dst[r * dstStride + i] = src[r * srcStride + i] for i < columns.
  virtual void copyRows(float *dst, int64_t dstStride, const float *src,
                        int64_t srcStride, int64_t rows, int64_t columns) = 0;
  /// Whether no element is NaN or infinite. Waits.
  virtual bool allFinite(const float *data, int64_t count) = 0;

  //===--- Communication between ranks
  //-------------------------------------===//
  /// In place over the ranks of `comm` (a no-op for a single rank). Every
  /// member calls it with the same arguments. Returns 0 or an error code
  /// the message names.
  virtual int allReduce(MPI_Comm comm, void *data, int64_t count,
                        ElementType type, ReduceOp op) = 0;
  /// Sums gradients over a replica group. A device may run it beside the
  /// rest of backward; waitGradients orders what reads the sum after it.
  virtual int allReduceGradients(MPI_Comm comm, float *data, int64_t count) {
    return allReduce(comm, data, count, ElementType::F32, ReduceOp::Sum);
  }
  /// Waits until the sum allReduceGradients started on `data` is in place
  /// (an asynchronous device: until work issued next runs after it), or
  /// with null every sum started; 0 or the sum's error code.
  virtual int waitGradients(const float *data) { return 0; }
  /// Seconds the gradient sums took since the last call, overlapped or
  /// not; negative when the device does not time them apart.
  virtual double takeGradientSyncSeconds() { return -1; }
  /// Collective over every rank, right after `group` was split from
  /// MPI_COMM_WORLD with this rank's `color` (MPI_UNDEFINED: not a member)
  /// and `key`: a device with communicators of its own makes the group's.
  virtual void groupCreated(MPI_Comm group, int color, int key) {}
  /// The communicators the device made of its own (NCCL's; the duplicates
  /// a gradient worker sums on), for --metrics.
  virtual int64_t communicators() const { return 0; }
  /// As mpi::exchangeForward and exchangeBackward (hdrt/mpi/Exchange.h).
  virtual int exchangeForward(MPI_Comm comm, const std::vector<mpi::Move> &plan,
                              mpi::Side side, const float *tile, float *in) = 0;
  virtual int exchangeBackward(MPI_Comm comm,
                               const std::vector<mpi::Move> &plan,
                               mpi::Side side, float *dTile,
                               const float *dIn) = 0;

protected:
  /// Destroys the kernel sets made so far: a backend calls it first in its
  /// destructor, while the handles and memory the sets use still exist.
  void releaseKernelSets() { kernelSets_.clear(); }

  /// What the device holds; each backend counts its allocations here.
  MemoryCounter memory_;

private:
  template <typename Set> friend Set &kernelsOf(Device &device);

  /// The set in `slot` (kernelSetSlot of `name`), made on first use.
  KernelSet &kernelSet(int slot, const char *name) {
    if (size_t(slot) >= kernelSets_.size())
      kernelSets_.resize(size_t(slot) + 1);
    std::unique_ptr<KernelSet> &set = kernelSets_[size_t(slot)];
    if (!set) {
      KernelFactory make = findKernels(name, backend());
      if (!make)
        throw DeviceError(std::string("the ") + backend() + " backend has no " +
                          name + " kernels");
      set = make(*this);
    }
    return *set;
  }

  /// Declared after memory_: a set's scratch memory counts in it.
  std::vector<std::unique_ptr<KernelSet>> kernelSets_;
};

/// The kernels `Set` (an interface of runtime/kernels/) of `device`'s
/// backend, made on first use and kept with the device.
template <typename Set> Set &kernelsOf(Device &device) {
  static const int slot = kernelSetSlot(Set::kName);
  return static_cast<Set &>(device.kernelSet(slot, Set::kName));
}

/// The device of this library's backend for this rank (libhdrt: the host;
/// libhdrt_cuda: the GPU its local rank picks). Collective over
/// MPI_COMM_WORLD. Throws DeviceError when there is none.
std::unique_ptr<Device> makeDevice(const DeviceOptions &options);

/// The backends themselves (a test may hold both).
std::unique_ptr<Device> makeCpuDevice(const DeviceOptions &options = {});
/// Needs MPI initialized; picks the GPU of LOCAL_RANK or of the rank's
/// index on its node.
std::unique_ptr<Device> makeCudaDevice(const DeviceOptions &options);

/// Device memory of `T`, allocated once and released with its owner; or a
/// view of part of another Buffer's (`view`), which releases nothing.
template <typename T> class Buffer {
public:
  Buffer() = default;
  Buffer(Device &device, int64_t count) { assign(device, count); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  Buffer(Buffer &&o) noexcept { *this = std::move(o); }
  Buffer &operator=(Buffer &&o) noexcept {
    std::swap(device_, o.device_);
    std::swap(data_, o.data_);
    std::swap(count_, o.count_);
    std::swap(owned_, o.owned_);
    return *this;
  }
  ~Buffer() {
    if (data_ && owned_)
      device_->release(data_, size_t(count_) * sizeof(T));
  }

  /// `count` elements at `data`, inside a Buffer that outlives this one.
  static Buffer view(Device &device, T *data, int64_t count) {
    Buffer b;
    b.device_ = &device;
    b.data_ = data;
    b.count_ = count;
    b.owned_ = false;
    return b;
  }

  /// `count` zeroed elements, replacing what was here.
  void assign(Device &device, int64_t count) {
    *this = Buffer();
    device_ = &device;
    count_ = count;
    if (count > 0)
      data_ = static_cast<T *>(device.allocate(size_t(count) * sizeof(T)));
  }
  T *data() const { return data_; }
  int64_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  void upload(const T *host) {
    if (count_)
      device_->upload(data_, host, size_t(count_) * sizeof(T));
  }
  void download(T *host) const {
    if (count_)
      device_->download(host, data_, size_t(count_) * sizeof(T));
  }

private:
  Device *device_ = nullptr;
  T *data_ = nullptr;
  int64_t count_ = 0;
  bool owned_ = true;
};

/// Host memory of `T` from Device::allocateHost, allocated once and
/// released with its owner.
template <typename T> class HostBuffer {
public:
  HostBuffer() = default;
  HostBuffer(Device &device, int64_t count) : device_(&device), count_(count) {
    if (count > 0)
      data_ = static_cast<T *>(device.allocateHost(size_t(count) * sizeof(T)));
  }
  HostBuffer(const HostBuffer &) = delete;
  HostBuffer &operator=(const HostBuffer &) = delete;
  HostBuffer(HostBuffer &&o) noexcept { *this = std::move(o); }
  HostBuffer &operator=(HostBuffer &&o) noexcept {
    std::swap(device_, o.device_);
    std::swap(data_, o.data_);
    std::swap(count_, o.count_);
    return *this;
  }
  ~HostBuffer() {
    if (data_)
      device_->releaseHost(data_, size_t(count_) * sizeof(T));
  }
  T *data() const { return data_; }
  int64_t size() const { return count_; }

private:
  Device *device_ = nullptr;
  T *data_ = nullptr;
  int64_t count_ = 0;
};

} // namespace hdrt

#endif // HDRT_DEVICE_H
