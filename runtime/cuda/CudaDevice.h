//===- CudaDevice.h - one GPU as a device -----------------------*- C++ -*-===//
//
// Each rank drives the GPU its local rank picks. Tensors live in device
// memory, allocated once; layer work runs in order on one compute stream,
// where the layer kinds' CUDA kernels (runtime/kernels/*/ *Cuda.*) launch
// theirs through what this class exposes to them: the stream, the cuDNN
// and cuBLAS handles bound to it, the options and the memory count their
// scratch memory adds to. Transfers are grouped ncclSend/ncclRecv on the
// world communicator; each replica group and statistics group gets its own
// communicator from ncclCommSplit (CudaCollectives.cpp). Gradient
// all-reduces run on a second stream, beside the rest of backward; work
// that reads a sum waits for it (waitGradients). A communicator is used on
// one stream only (the gradient stream has its own copies): NCCL orders a
// communicator's operations by launch, not across streams, and two streams
// sharing one could deadlock.
//
// Every CUDA, cuDNN, cuBLAS and NCCL call is checked; a failure throws a
// DeviceError naming the call, and the executor adds the layer. What no
// call reports, a communicator's asynchronous error or a wait that never
// ends (a peer gone, collectives out of order), the watchdog does: it
// aborts the communicators and the job, naming the rank.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_CUDA_CUDADEVICE_H
#define HDRT_CUDA_CUDADEVICE_H

#include "Scratch.h"

#include "hdrt/Device.h"
#include "hdrt/common/Geometry.h"
#include "hdrt/common/GradientBuckets.h"
#include "hdrt/common/Watchdog.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <nccl.h>

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace hdrt::cuda {

class CudaDevice final : public Device {
public:
  /// Collective over MPI_COMM_WORLD: every rank picks its GPU, and NCCL
  /// starts once all have one.
  explicit CudaDevice(const DeviceOptions &options);
  ~CudaDevice() override;

  /// `device`, which a CUDA kernel set was registered for.
  static CudaDevice &of(Device &device) {
    return static_cast<CudaDevice &>(device);
  }

  // What the layer kinds' CUDA kernels use.
  cudaStream_t stream() const { return compute_; }
  cudnnHandle_t dnn() const { return dnn_; }
  cublasHandle_t blas() const { return blas_; }
  const DeviceOptions &options() const { return options_; }
  /// While it lives, the host waits on this GPU for `what`: the watchdog
  /// ends the job if that lasts too long.
  Watchdog::Wait waiting(const char *what) { return {*watchdog_, what}; }
  /// For a kernel set's Scratch: its memory counts in peakBytes.
  MemoryCounter &memoryCounter() { return memory_; }
  /// Activations are NCHW here (channelBlock() is 1): throws for a tile in
  /// a blocked layout.
  static void requirePlainLayout(int64_t block);
  static void requirePlainLayouts(const TileLayouts &layouts) {
    requirePlainLayout(layouts.in);
    requirePlainLayout(layouts.out);
  }

  const char *backend() const override { return "cuda"; }
  std::string describe() const override { return name_; }

  void *allocate(size_t bytes) override;
  void release(void *memory, size_t bytes) override;
  void *allocateHost(size_t bytes) override;
  void releaseHost(void *memory, size_t bytes) override;
  void upload(void *dst, const void *host, size_t bytes) override;
  void finishUploads() override;
  int64_t markTime() override;
  double secondsBetween(int64_t from, int64_t to) override;
  void clearMarks() override { marksUsed_ = marksDone_ = 0; }
  void download(void *host, const void *src, size_t bytes) override;
  void fence() override;

  void fill(float *dst, int64_t count, float value) override;
  void copyRegion(const float *src, const Box &srcBox, float *dst,
                  const Box &dstBox, const Box &region) override;
  void addRegion(const float *src, const Box &srcBox, float *dst,
                 const Box &dstBox, const Box &region) override;
  void copyRows(float *dst, int64_t dstStride, const float *src,
                int64_t srcStride, int64_t rows, int64_t columns) override;
  bool allFinite(const float *data, int64_t count) override;

  // CudaCollectives.cpp
  void groupCreated(MPI_Comm group, int color, int key) override;
  int allReduce(MPI_Comm comm, void *data, int64_t count, ElementType type,
                ReduceOp op) override;
  int allReduceGradients(MPI_Comm comm, float *data, int64_t count) override;
  int waitGradients(const float *data) override;
  int64_t communicators() const override;
  int exchangeForward(MPI_Comm comm, const std::vector<mpi::Move> &plan,
                      mpi::Side side, const float *tile, float *in) override;
  int exchangeBackward(MPI_Comm comm, const std::vector<mpi::Move> &plan,
                       mpi::Side side, float *dTile, const float *dIn) override;

private:
  /// A group's two NCCL communicators: one for the compute stream, one
  /// for the gradient stream.
  struct GroupComms {
    ncclComm_t compute = nullptr, gradients = nullptr;
  };

  void pickGpu(MPI_Comm node, std::array<char, 32> &busId);
  std::string sharedGpu(MPI_Comm node, const std::array<char, 32> &busId);
  void createStreamsAndHandles();
  void startNccl();
  /// The first asynchronous error of a communicator, or nothing.
  std::string ncclProblem();
  [[noreturn]] void abortJob(const std::string &problem);
  /// Orders the compute stream after the gradient sums issued so far.
  void waitForGradients();
  ncclComm_t ncclOf(MPI_Comm comm, bool gradients);
  /// Gradient sums share buckets of this size, as PyTorch DDP's do.
  static constexpr int64_t kBucketBytes = int64_t(25) << 20;
  using Buckets = GradientBuckets<ncclComm_t>;
  void sumBuckets(const std::vector<Buckets::Bucket> &closed);
  void exchange(const std::vector<mpi::Move> &plan, bool forward,
                mpi::Side side, const float *from, float *to);

  DeviceOptions options_;
  int gpu_ = 0, rank_ = 0, ranks_ = 1;
  std::string name_;
  cudaStream_t compute_ = nullptr, comm_ = nullptr;
  cudaEvent_t ready_ = nullptr, synced_ = nullptr;
  /// Recorded after each upload: finishUploads waits for the last.
  cudaEvent_t uploaded_ = nullptr;
  /// Timing events, made as a step first needs them and reused.
  std::vector<cudaEvent_t> marks_;
  size_t marksUsed_ = 0;
  size_t marksDone_ = 0; // the marks known to have passed
  bool gradientsPending_ = false;
  cudnnHandle_t dnn_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  ncclComm_t world_ = nullptr, worldGradients_ = nullptr;
  std::map<MPI_Comm, GroupComms> groups_;
  /// Guards groups_ against the watchdog's polls.
  mutable std::mutex groupsMutex_;
  Buckets buckets_{kBucketBytes};
  Scratch exchangeScratch_{memory_};
  int *hostFlag_ = nullptr, *deviceFlag_ = nullptr;
  /// Made last and stopped first: it polls the communicators above.
  std::unique_ptr<Watchdog> watchdog_;
};

} // namespace hdrt::cuda

#endif // HDRT_CUDA_CUDADEVICE_H
