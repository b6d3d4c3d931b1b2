//===- Device.h - where a rank's tensors live and its kernels run -*- C++ -*-===//
//
// One rank drives one device: the host's cores (oneDNN kernels, MPI
// messages) or a GPU (cuDNN, cuBLAS, NCCL). The executor (exec/) keeps the
// program's structure on the host and asks its Device for every operation
// on tensor data, so the step, the transfer plans, the replica groups and
// the checkpoints are the same code on every backend.
//
// Every float, double and int32 pointer a Device method takes is device
// memory from allocate(), unless its name says host. Work may run
// asynchronously; fence() waits for all of it, and methods that return a
// value to the host (allFinite, the loss) wait themselves.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_DEVICE_H
#define HDRT_DEVICE_H

#include "hdrt/Box.h"
#include "hdrt/common/Activation.h"
#include "hdrt/common/Binary.h"
#include "hdrt/common/Geometry.h"
#include "hdrt/mpi/Exchange.h"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
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

  //===--- Memory ----------------------------------------------------------===//
  /// Zeroed memory for `bytes`; freed by release with the same size. Never
  /// null for bytes > 0.
  virtual void *allocate(size_t bytes) = 0;
  virtual void release(void *memory, size_t bytes) = 0;
  /// The most bytes this device held at once: its allocations and the
  /// kernels' own scratch memory (--metrics' peak_mem_bytes).
  int64_t peakBytes() const { return memory_.peak; }
  virtual void upload(void *dst, const void *host, size_t bytes) = 0;
  virtual void download(void *host, const void *src, size_t bytes) = 0;
  /// Waits until every operation issued so far has finished.
  virtual void fence() = 0;
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

  //===--- Layer kernels, as in cpu/Kernels.h and cpu/TileOps.h ------------===//
  virtual void conv2dForward(const Conv2dShape &s, const float *in,
                             const float *weight, const float *bias,
                             float *out) = 0;
  virtual void conv2dBackwardData(const Conv2dShape &s, const float *dOut,
                                  const float *weight, float *dIn) = 0;
  virtual void conv2dBackwardWeights(const Conv2dShape &s, const float *in,
                                     const float *dOut, float *dWeight,
                                     float *dBias) = 0;
  /// out[n, c, :] = perChannel[c] (or 0 when null): a convolution tile
  /// whose windows lie entirely in the padding.
  virtual void fillChannels(int64_t n, int64_t c, int64_t hw,
                            const float *perChannel, float *out) = 0;
  /// out[c] = sum over n and hw of in[n, c, :] (overwritten).
  virtual void sumChannels(int64_t n, int64_t c, int64_t hw, const float *in,
                           float *out) = 0;

  /// Bytes a layer keeps from max pooling's forward for its backward (where
  /// each window's maximum is); 0 where the device finds them again.
  virtual int64_t pool2dWorkspaceBytes(const Pool2dShape &s) { return 0; }
  /// `workspace`: pool2dWorkspaceBytes of device memory, or null; backward
  /// reads what the forward of the same `in` left there.
  virtual void pool2dForward(const Pool2dShape &s, const float *in,
                             float *out, void *workspace) = 0;
  virtual void pool2dBackward(const Pool2dShape &s, const float *in,
                              const float *dOut, float *dIn,
                              const void *workspace) = 0;

  virtual void linearForward(int64_t n, int64_t features, int64_t outFeatures,
                             const float *in, const float *weight,
                             const float *bias, float *out) = 0;
  virtual void linearBackwardData(int64_t n, int64_t features,
                                  int64_t outFeatures, const float *dOut,
                                  const float *weight, float *dIn) = 0;
  virtual void linearBackwardWeights(int64_t n, int64_t features,
                                     int64_t outFeatures, const float *in,
                                     const float *dOut, float *dWeight,
                                     float *dBias) = 0;

  virtual void reluForward(int64_t count, const float *in, float *out) = 0;
  /// `x` is the ReLU's input or its output: both give the same mask
  /// (reluForward keeps a NaN, and x > 0 exactly where max(x, 0) > 0).
  virtual void reluBackward(int64_t count, const float *x, const float *dOut,
                            float *dIn) = 0;
  /// out = a + b; with `relu`, relu(a + b) (cpu/TileOps.h).
  virtual void add(int64_t count, const float *a, const float *b, float *out,
                   bool relu) = 0;
  /// hd.activation (common/Activation.h); backward from the input.
  virtual void activationForward(const Activation &f, int64_t count,
                                 const float *in, float *out) = 0;
  virtual void activationBackward(const Activation &f, int64_t count,
                                  const float *in, const float *dOut,
                                  float *dIn) = 0;
  /// hd.binary (common/Binary.h): out = a f b over `rows` x `cols` values;
  /// b holds one value per row when `broadcast`, else one per element.
  /// Backward writes dA and dB (row sums when broadcast); either may be
  /// null.
  virtual void binaryForward(BinaryFunction f, int64_t rows, int64_t cols,
                             bool broadcast, const float *a, const float *b,
                             float *out) = 0;
  virtual void binaryBackward(BinaryFunction f, int64_t rows, int64_t cols,
                              bool broadcast, const float *a, const float *b,
                              const float *dOut, float *dA, float *dB) = 0;
  virtual void dropout(const TileRegion &tile, uint64_t seed, uint64_t stream,
                       float ratio, const float *in, float *out) = 0;
  virtual void sgdMomentum(int64_t count, float lr, float momentum,
                           float weightDecay, bool nesterov, float *param,
                           const float *grad, float *velocity) = 0;

  /// Batch norm on tiles in the layout `block` names (cpu/TileOps.h).
  /// `sums` holds 2c doubles: per-channel sums, then sums of squares
  /// (forward) or of dOut * xhat (backward); overwritten.
  virtual void batchNormPartialSums(int64_t n, int64_t c, int64_t hw,
                                    int64_t block, const float *in,
                                    double *sums) = 0;
  virtual void batchNormStatistics(int64_t c, int64_t count, double eps,
                                   const double *sums, float *mean,
                                   float *invStd) = 0;
  /// After batchNormStatistics of a training step (same sums).
  virtual void batchNormRunningUpdate(int64_t c, int64_t count,
                                      double momentum, const double *sums,
                                      float *runningMean,
                                      float *runningVar) = 0;
  virtual void batchNormInvStd(int64_t c, double eps, const float *var,
                               float *invStd) = 0;
  /// With `relu`, out = relu(the normalized value) (cpu/TileOps.h).
  virtual void batchNormForward(int64_t n, int64_t c, int64_t hw,
                                int64_t block, const float *in,
                                const float *mean, const float *invStd,
                                const float *scale, const float *shift,
                                float *out, bool relu) = 0;
  virtual void batchNormBackwardPartialSums(int64_t n, int64_t c, int64_t hw,
                                            int64_t block, const float *in,
                                            const float *dOut,
                                            const float *mean,
                                            const float *invStd,
                                            double *sums) = 0;
  /// dScale = sums[c..2c), dShift = sums[0..c): this tile's share.
  virtual void batchNormParamGrads(int64_t c, const double *sums,
                                   float *dScale, float *dShift) = 0;
  virtual void batchNormBackwardData(int64_t n, int64_t c, int64_t hw,
                                     int64_t block, int64_t count,
                                     const float *in,
                                     const float *dOut, const float *mean,
                                     const float *invStd, const float *scale,
                                     const double *sums, float *dIn) = 0;

  /// Layer norm over the channels of each pixel of an n x c x hw tile whose
  /// channels are part of `channels`. `sums` holds 2 * n * hw doubles: per
  /// pixel, the sums over the tile's channels of x and x^2 (forward), or of
  /// g = dOut * scale and g * xhat (backward); overwritten.
  virtual void layerNormPartialSums(int64_t n, int64_t c, int64_t hw,
                                    const float *in, double *sums) = 0;
  /// From the pixels' sums over all channels: their mean and 1/stddev, and
  /// the output.
  virtual void layerNormForward(int64_t n, int64_t c, int64_t hw,
                                int64_t channels, double eps,
                                const double *sums, const float *in,
                                const float *scale, const float *shift,
                                float *mean, float *invStd, float *out) = 0;
  virtual void layerNormBackwardPartialSums(int64_t n, int64_t c, int64_t hw,
                                            const float *in, const float *dOut,
                                            const float *mean,
                                            const float *invStd,
                                            const float *scale,
                                            double *sums) = 0;
  /// dScale and dShift (this tile's share), and dIn unless null, from the
  /// pixels' backward sums over all channels.
  virtual void layerNormBackward(int64_t n, int64_t c, int64_t hw,
                                 int64_t channels, const float *in,
                                 const float *dOut, const float *mean,
                                 const float *invStd, const float *scale,
                                 const double *sums, float *dIn, float *dScale,
                                 float *dShift) = 0;

  /// ShuffleNet's shuffle of an n x c x hw tile:
  /// out[i, k * groups + g] = in[i, g * c / groups + k].
  virtual void channelShuffle(int64_t n, int64_t c, int64_t hw,
                              int64_t groups, const float *in,
                              float *out) = 0;

  /// Softmax cross-entropy on an N x K tile; `max` and `sum` are
  /// overwritten with the tile's partial values.
  virtual void softmaxPartialMax(int64_t n, int64_t k, const float *logits,
                                 float *max) = 0;
  virtual void softmaxPartialSum(int64_t n, int64_t k, const float *logits,
                                 const float *max, double *sum) = 0;
  /// Waits: the tile's summed -log softmax of its labels.
  virtual double softmaxCrossEntropyPartialLoss(
      int64_t n, int64_t k, int64_t classOffset, const float *logits,
      const int32_t *labels, const float *max, const double *sum) = 0;
  virtual void softmaxCrossEntropyBackward(int64_t n, int64_t k,
                                           int64_t classOffset,
                                           int64_t globalBatch,
                                           const float *logits,
                                           const int32_t *labels,
                                           const float *max, const double *sum,
                                           float *dLogits) = 0;

  //===--- Communication between ranks -------------------------------------===//
  /// In place over the ranks of `comm` (a no-op for a single rank). Every
  /// member calls it with the same arguments. Returns 0 or an error code
  /// the message names.
  virtual int allReduce(MPI_Comm comm, void *data, int64_t count,
                        ElementType type, ReduceOp op) = 0;
  /// Sums gradients over a replica group. A device may run it beside the
  /// rest of backward; waitGradients (or sgdMomentum) waits for it.
  virtual int allReduceGradients(MPI_Comm comm, float *data, int64_t count) {
    return allReduce(comm, data, count, ElementType::F32, ReduceOp::Sum);
  }
  /// Waits until the sum allReduceGradients started on `data` is in place;
  /// 0 or the sum's error code.
  virtual int waitGradients(const float *data) { return 0; }
  /// Seconds the gradient sums took since the last call, overlapped or
  /// not; negative when the device does not time them apart.
  virtual double takeGradientSyncSeconds() { return -1; }
  /// Collective over every rank, right after `group` was split from
  /// MPI_COMM_WORLD with this rank's `color` (MPI_UNDEFINED: not a member)
  /// and `key`: a device with communicators of its own makes the group's.
  virtual void groupCreated(MPI_Comm group, int color, int key) {}
  /// As mpi::exchangeForward and exchangeBackward (hdrt/mpi/Exchange.h).
  virtual int exchangeForward(MPI_Comm comm,
                              const std::vector<mpi::Move> &plan,
                              mpi::Side side, const float *tile,
                              float *in) = 0;
  virtual int exchangeBackward(MPI_Comm comm,
                               const std::vector<mpi::Move> &plan,
                               mpi::Side side, float *dTile,
                               const float *dIn) = 0;

protected:
  /// What the device holds; each backend counts its allocations here.
  MemoryCounter memory_;
};

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

} // namespace hdrt

#endif // HDRT_DEVICE_H
