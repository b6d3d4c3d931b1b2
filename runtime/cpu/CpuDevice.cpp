//===- CpuDevice.cpp - the host as a device: oneDNN kernels, MPI ----------===//
//
// Device memory is host memory and every operation finishes before it
// returns; the kernels are those of Kernels.cpp and TileOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "hdrt/Device.h"
#include "hdrt/common/Caches.h"
#include "hdrt/common/Parallel.h"
#include "hdrt/cpu/Kernels.h"
#include "hdrt/cpu/TileOps.h"
#include "hdrt/mpi/GradientSync.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <omp.h>
#include <thread>
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

  void conv2dForward(const Conv2dShape &s, const float *in, const float *w,
                     const float *bias, float *out) override {
    cpu::conv2dForward(s, in, w, bias, out);
  }
  void conv2dBackwardData(const Conv2dShape &s, const float *dOut,
                          const float *w, float *dIn) override {
    cpu::conv2dBackwardData(s, dOut, w, dIn);
  }
  void conv2dBackwardWeights(const Conv2dShape &s, const float *in,
                             const float *dOut, float *dW,
                             float *dBias) override {
    cpu::conv2dBackwardWeights(s, in, dOut, dW, dBias);
  }
  void fillChannels(int64_t n, int64_t c, int64_t hw, const float *perChannel,
                    float *out) override {
    parallelFor(n * c, n * c * hw, [&](int64_t row) {
      std::fill(out + row * hw, out + (row + 1) * hw,
                perChannel ? perChannel[row % c] : 0.0f);
    });
  }
  void sumChannels(int64_t n, int64_t c, int64_t hw, const float *in,
                   float *out) override {
    // One channel per iteration, its terms in the serial order.
    parallelFor(c, n * c * hw, [&](int64_t ch) {
      float sum = 0.0f;
      for (int64_t s = 0; s < n; ++s)
        for (int64_t i = 0; i < hw; ++i)
          sum += in[(s * c + ch) * hw + i];
      out[ch] = sum;
    });
  }

  int64_t pool2dWorkspaceBytes(const Pool2dShape &s) override {
    return cpu::pool2dWorkspaceBytes(s);
  }
  void pool2dForward(const Pool2dShape &s, const float *in, float *out,
                     void *workspace) override {
    cpu::pool2dForward(s, in, out, workspace);
  }
  void pool2dBackward(const Pool2dShape &s, const float *in, const float *dOut,
                      float *dIn, const void *workspace) override {
    cpu::pool2dBackward(s, in, dOut, dIn, workspace);
  }

  void linearForward(int64_t n, int64_t f, int64_t k, const float *in,
                     const float *w, const float *bias, float *out) override {
    cpu::linearForward(n, f, k, in, w, bias, out);
  }
  void linearBackwardData(int64_t n, int64_t f, int64_t k, const float *dOut,
                          const float *w, float *dIn) override {
    cpu::linearBackwardData(n, f, k, dOut, w, dIn);
  }
  void linearBackwardWeights(int64_t n, int64_t f, int64_t k, const float *in,
                             const float *dOut, float *dW,
                             float *dBias) override {
    cpu::linearBackwardWeights(n, f, k, in, dOut, dW, dBias);
  }

  void reluForward(int64_t count, const float *in, float *out) override {
    cpu::reluForward(count, in, out);
  }
  void reluBackward(int64_t count, const float *in, const float *dOut,
                    float *dIn) override {
    cpu::reluBackward(count, in, dOut, dIn);
  }
  void add(int64_t count, const float *a, const float *b, float *out,
           bool relu) override {
    cpu::add(count, a, b, out, relu);
  }
  void dropout(const TileRegion &tile, uint64_t seed, uint64_t stream,
               float ratio, const float *in, float *out) override {
    cpu::dropout(tile, seed, stream, ratio, in, out);
  }
  void activationForward(const Activation &f, int64_t count, const float *in,
                         float *out) override {
    cpu::activationForward(f, count, in, out);
  }
  void activationBackward(const Activation &f, int64_t count, const float *in,
                          const float *dOut, float *dIn) override {
    cpu::activationBackward(f, count, in, dOut, dIn);
  }
  void binaryForward(BinaryFunction f, int64_t rows, int64_t cols,
                     bool broadcast, const float *a, const float *b,
                     float *out) override {
    cpu::binaryForward(f, rows, cols, broadcast, a, b, out);
  }
  void binaryBackward(BinaryFunction f, int64_t rows, int64_t cols,
                      bool broadcast, const float *a, const float *b,
                      const float *dOut, float *dA, float *dB) override {
    cpu::binaryBackward(f, rows, cols, broadcast, a, b, dOut, dA, dB);
  }
  void sgdMomentum(int64_t count, float lr, float momentum, float weightDecay,
                   bool nesterov, float *param, const float *grad,
                   float *velocity) override {
    cpu::sgdMomentum(count, lr, momentum, weightDecay, nesterov, param, grad,
                     velocity);
  }

  void batchNormPartialSums(int64_t n, int64_t c, int64_t hw, int64_t block,
                            const float *in, double *sums) override {
    std::fill(sums, sums + 2 * c, 0.0);
    cpu::batchNormPartialSums(n, c, hw, block, in, sums, sums + c);
  }
  void batchNormStatistics(int64_t c, int64_t count, double eps,
                           const double *sums, float *mean,
                           float *invStd) override {
    cpu::batchNormStatistics(c, count, eps, sums, sums + c, mean, invStd);
  }
  void batchNormRunningUpdate(int64_t c, int64_t count, double momentum,
                              const double *sums, float *runningMean,
                              float *runningVar) override {
    cpu::batchNormRunningUpdate(c, count, momentum, sums, sums + c,
                                runningMean, runningVar);
  }
  void batchNormInvStd(int64_t c, double eps, const float *var,
                       float *invStd) override {
    cpu::batchNormInvStd(c, eps, var, invStd);
  }
  void batchNormForward(int64_t n, int64_t c, int64_t hw, int64_t block,
                        const float *in, const float *mean,
                        const float *invStd, const float *scale,
                        const float *shift, float *out,
                        bool relu) override {
    cpu::batchNormForward(n, c, hw, block, in, mean, invStd, scale, shift,
                          out, relu);
  }
  void batchNormBackwardPartialSums(int64_t n, int64_t c, int64_t hw,
                                    int64_t block, const float *in,
                                    const float *dOut, const float *mean,
                                    const float *invStd,
                                    double *sums) override {
    std::fill(sums, sums + 2 * c, 0.0);
    cpu::batchNormBackwardPartialSums(n, c, hw, block, in, dOut, mean, invStd,
                                      sums, sums + c);
  }
  void batchNormParamGrads(int64_t c, const double *sums, float *dScale,
                           float *dShift) override {
    for (int64_t ch = 0; ch < c; ++ch) {
      dScale[ch] = static_cast<float>(sums[c + ch]);
      dShift[ch] = static_cast<float>(sums[ch]);
    }
  }
  void batchNormBackwardData(int64_t n, int64_t c, int64_t hw, int64_t block,
                             int64_t count, const float *in,
                             const float *dOut, const float *mean,
                             const float *invStd, const float *scale,
                             const double *sums, float *dIn) override {
    cpu::batchNormBackwardData(n, c, hw, block, count, in, dOut, mean, invStd,
                               scale, sums, sums + c, dIn);
  }

  void layerNormPartialSums(int64_t n, int64_t c, int64_t hw, const float *in,
                            double *sums) override {
    cpu::layerNormPartialSums(n, c, hw, in, sums);
  }
  void layerNormForward(int64_t n, int64_t c, int64_t hw, int64_t channels,
                        double eps, const double *sums, const float *in,
                        const float *scale, const float *shift, float *mean,
                        float *invStd, float *out) override {
    cpu::layerNormForward(n, c, hw, channels, eps, sums, in, scale, shift,
                          mean, invStd, out);
  }
  void layerNormBackwardPartialSums(int64_t n, int64_t c, int64_t hw,
                                    const float *in, const float *dOut,
                                    const float *mean, const float *invStd,
                                    const float *scale,
                                    double *sums) override {
    cpu::layerNormBackwardPartialSums(n, c, hw, in, dOut, mean, invStd, scale,
                                      sums);
  }
  void layerNormBackward(int64_t n, int64_t c, int64_t hw, int64_t channels,
                         const float *in, const float *dOut, const float *mean,
                         const float *invStd, const float *scale,
                         const double *sums, float *dIn, float *dScale,
                         float *dShift) override {
    cpu::layerNormBackward(n, c, hw, channels, in, dOut, mean, invStd, scale,
                           sums, dIn, dScale, dShift);
  }
  void channelShuffle(int64_t n, int64_t c, int64_t hw, int64_t groups,
                      const float *in, float *out) override {
    cpu::channelShuffle(n, c, hw, groups, in, out);
  }

  void softmaxPartialMax(int64_t n, int64_t k, const float *logits,
                         float *max) override {
    std::fill(max, max + n, -std::numeric_limits<float>::infinity());
    cpu::softmaxPartialMax(n, k, logits, max);
  }
  void softmaxPartialSum(int64_t n, int64_t k, const float *logits,
                         const float *max, double *sum) override {
    std::fill(sum, sum + n, 0.0);
    cpu::softmaxPartialSum(n, k, logits, max, sum);
  }
  double softmaxCrossEntropyPartialLoss(int64_t n, int64_t k,
                                        int64_t classOffset,
                                        const float *logits,
                                        const int32_t *labels,
                                        const float *max,
                                        const double *sum) override {
    return cpu::softmaxCrossEntropyPartialLoss(n, k, classOffset, logits,
                                               labels, max, sum);
  }
  void softmaxCrossEntropyBackward(int64_t n, int64_t k, int64_t classOffset,
                                   int64_t globalBatch, const float *logits,
                                   const int32_t *labels, const float *max,
                                   const double *sum,
                                   float *dLogits) override {
    cpu::softmaxCrossEntropyBackward(n, k, classOffset, globalBatch, logits,
                                     labels, max, sum, dLogits);
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
  bool overlap = options.overlapSync == Overlap::On ||
                 (options.overlapSync == Overlap::Auto &&
                  omp_get_max_threads() >= 2);
  return std::make_unique<CpuDevice>(overlap);
}

} // namespace hdrt
