//===- CpuDevice.cpp - the host as a device: host memory, MPI -------------===//
//
// Device memory is host memory and every operation finishes before it
// returns. The kinds' CPU kernels (runtime/kernels/*/ *Cpu.cpp) run on
// oneDNN (cpu/Dnnl.h) and on loops over the rank's OpenMP threads
// (hdrt/common/Parallel.h); its activation tiles may stay in oneDNN's
// blocked layout between layers.
//
//===----------------------------------------------------------------------===//

#include "Dnnl.h"

#include "hdrt/Device.h"
#include "hdrt/common/Caches.h"
#include "hdrt/common/Parallel.h"
#include "hdrt/mpi/GradientSync.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <omp.h>
#include <unordered_map>

namespace hdrt {

namespace {

MPI_Datatype mpiType(ElementType t) {
  return t == ElementType::F32 ? MPI_FLOAT : MPI_DOUBLE;
}

class CpuDevice final : public Device {
public:
  explicit CpuDevice(bool overlapSync) : gradients_(overlapSync) {}

  const char *backend() const override { return "cpu"; }
  std::string describe() const override { return "host CPU"; }
  bool hostAccessible() const override { return true; }
  int64_t channelBlock() const override { return cpu::channelBlock(); }

  void *allocate(size_t bytes) override {
    if (bytes == 0)
      return nullptr;
    // 64-byte alignment, as oneDNN prefers.
    void *p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p)
      throw DeviceError("out of host memory allocating " +
                        std::to_string(bytes) + " bytes");
    std::memset(p, 0, bytes);
    memory_.allocated(bytes);
    live_[p] = bytes;
    return p;
  }
  void release(void *memory, size_t bytes) override {
    if (memory) {
      memory_.released(bytes);
      live_.erase(memory);
    }
    std::free(memory);
  }
  void evictFromCaches() override {
    for (auto [memory, bytes] : live_)
      flushFromCaches(memory, bytes);
  }
  void upload(void *dst, const void *host, size_t bytes) override {
    std::memcpy(dst, host, bytes);
  }
  void download(void *host, const void *src, size_t bytes) override {
    std::memcpy(host, src, bytes);
  }
  void fence() override {}

  void fill(float *dst, int64_t count, float value) override {
    parallelChunks(count, [&](int64_t begin, int64_t end) {
      std::fill(dst + begin, dst + end, value);
    });
  }
  void copyRegion(const float *src, const Box &srcBox, float *dst,
                  const Box &dstBox, const Box &region) override {
    hdrt::copyRegion(src, srcBox, dst, dstBox, region);
  }
  void addRegion(const float *src, const Box &srcBox, float *dst,
                 const Box &dstBox, const Box &region) override {
    hdrt::addRegion(src, srcBox, dst, dstBox, region);
  }
  void copyRows(float *dst, int64_t dstStride, const float *src,
                int64_t srcStride, int64_t rows, int64_t columns) override {
    if (rows == 1) // one contiguous run
      return parallelChunks(columns, [&](int64_t begin, int64_t end) {
        std::memcpy(dst + begin, src + begin,
                    size_t(end - begin) * sizeof(float));
      });
    parallelFor(rows, rows * columns, [&](int64_t r) {
      std::memcpy(dst + r * dstStride, src + r * srcStride,
                  size_t(columns) * sizeof(float));
    });
  }
  bool allFinite(const float *data, int64_t count) override {
    for (int64_t i = 0; i < count; ++i)
      if (!std::isfinite(data[i]))
        return false;
    return true;
  }

  int allReduce(MPI_Comm comm, void *data, int64_t count, ElementType type,
                ReduceOp op) override {
    int size = 1;
    if (comm == MPI_COMM_NULL || (MPI_Comm_size(comm, &size), size == 1))
      return MPI_SUCCESS;
    if (type == ElementType::F32 && op == ReduceOp::Sum)
      return mpi::allReduceSum(comm, static_cast<float *>(data), count);
    if (count > INT_MAX)
      return MPI_ERR_COUNT;
    return MPI_Allreduce(MPI_IN_PLACE, data, int(count), mpiType(type),
                         op == ReduceOp::Sum ? MPI_SUM : MPI_MAX, comm);
  }
  int allReduceGradients(MPI_Comm comm, float *data, int64_t count) override {
    int size = 1;
    if (comm == MPI_COMM_NULL || (MPI_Comm_size(comm, &size), size == 1))
      return MPI_SUCCESS;
    return gradients_.start(comm, data, count);
  }
  int waitGradients(const float *data) override {
    return gradients_.wait(data);
  }
  double takeGradientSyncSeconds() override {
    return gradients_.takeBusySeconds();
  }
  int64_t communicators() const override { return gradients_.communicators(); }
  int exchangeForward(MPI_Comm comm, const std::vector<mpi::Move> &plan,
                      mpi::Side side, const float *tile, float *in) override {
    return mpi::exchangeForward(comm, plan, side, tile, in);
  }
  int exchangeBackward(MPI_Comm comm, const std::vector<mpi::Move> &plan,
                       mpi::Side side, float *dTile,
                       const float *dIn) override {
    return mpi::exchangeBackward(comm, plan, side, dTile, dIn);
  }

private:
  /// Gradient sums on a thread of their own, beside the backward pass.
  mpi::GradientSync gradients_;
  /// Every allocation still held, for evictFromCaches.
  std::unordered_map<void *, size_t> live_;
};

} // namespace

std::unique_ptr<Device> makeCpuDevice(const DeviceOptions &options) {
  using Overlap = DeviceOptions::SyncOverlap;
  bool overlap =
      options.overlapSync == Overlap::On ||
      (options.overlapSync == Overlap::Auto && omp_get_max_threads() >= 2);
  return std::make_unique<CpuDevice>(overlap);
}

} // namespace hdrt
