//===- CudaDevice.cpp - one GPU: cuDNN, cuBLAS, NCCL ----------------------===//
//
// Each rank drives the GPU its local rank picks. Tensors live in device
// memory, allocated once; layer work runs in order on one compute stream:
// convolutions on cuDNN (its algorithm chosen once per shape and cached),
// fully-connected layers on cuBLAS, everything else on the kernels of
// Kernels.cu. Transfers are grouped ncclSend/ncclRecv on the world
// communicator; each replica group and statistics group gets its own
// communicator from ncclCommSplit. Gradient all-reduces run on a second
// stream, beside the rest of backward; the optimizer waits for them. A
// communicator is used on one stream only (the gradient stream has its own
// copies): NCCL orders a communicator's operations by launch, not across
// streams, and two streams sharing one could deadlock.
//
// Every CUDA, cuDNN, cuBLAS and NCCL call is checked; a failure throws a
// DeviceError naming the call, and the executor adds the layer.
//
// Over 600 lines because it is one class implementing every Device method;
// what stands alone is elsewhere: cuDNN's convolution plans (ConvPlans.cpp),
// the checked calls (Check.h), reused scratch memory (Scratch.h), the
// kernels (Kernels.cu).
//
//===----------------------------------------------------------------------===//

#include "Check.h"
#include "ConvPlans.h"
#include "Kernels.h"
#include "Scratch.h"

#include "hdrt/Device.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <nccl.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace hdrt {

using namespace cuda;

namespace {

/// Every rank throws when any rank could not set up its GPU, with the
/// first failing rank's reason: a rank that gave up alone would leave the
/// others waiting in NCCL's initialization for ever.
void throwIfAnyRankFailed(const std::string &problem, int rank) {
  int first = problem.empty() ? INT_MAX : rank;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == INT_MAX)
    return;
  int length = rank == first ? int(problem.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, first, MPI_COMM_WORLD);
  std::string text = rank == first ? problem : std::string(size_t(length), ' ');
  MPI_Bcast(text.data(), length, MPI_CHAR, first, MPI_COMM_WORLD);
  throw DeviceError(rank == first ? text
                                  : "rank " + std::to_string(first) + ": " +
                                        text);
}

/// What `step` threw as a DeviceError, or nothing: a rank's setup failure
/// is kept until every rank can hear of it.
template <typename Step> std::string failureOf(Step step) {
  try {
    step();
  } catch (const DeviceError &e) {
    return e.what();
  }
  return {};
}

ncclDataType_t ncclTypeOf(ElementType t) {
  return t == ElementType::F32 ? ncclFloat32 : ncclFloat64;
}

class CudaDevice final : public Device {
public:
  explicit CudaDevice(const DeviceOptions &options) : options_(options) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
    // Each rank sets up its GPU, then all agree before NCCL starts. The
    // steps that talk to other ranks run on every rank, failed or not.
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                        MPI_INFO_NULL, &node);
    std::array<char, 32> busId{};
    std::string problem = failureOf([&] { pickGpu(node, busId); });
    if (std::string clash = sharedGpu(node, busId); problem.empty())
      problem = clash;
    MPI_Comm_free(&node);
    if (problem.empty())
      problem = failureOf([&] { createStreamsAndHandles(); });
    throwIfAnyRankFailed(problem, rank_);
    if (ranks_ > 1) {
      // Rank 0's id reaches the others over MPI, which mpirun joined.
      ncclUniqueId id;
      std::string idProblem;
      if (rank_ == 0)
        idProblem = failureOf([&] { HDRT_CUDA_CHECK(ncclGetUniqueId(&id)); });
      throwIfAnyRankFailed(idProblem, rank_);
      MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
      HDRT_CUDA_CHECK(ncclCommInitRank(&world_, ranks_, id, rank_));
      HDRT_CUDA_CHECK(ncclCommSplit(world_, 0, rank_, &worldGradients_, nullptr));
    }
  }

  ~CudaDevice() override {
    // Best effort: the process is ending; errors here have no one to tell.
    cudaStreamSynchronize(compute_);
    cudaStreamSynchronize(comm_);
    convPlans_.clear();
    for (auto &[mpiComm, comms] : groups_) {
      ncclCommDestroy(comms.compute);
      ncclCommDestroy(comms.gradients);
    }
    for (ncclComm_t c : {world_, worldGradients_})
      if (c)
        ncclCommDestroy(c);
    cublasDestroy(blas_);
    cudnnDestroy(dnn_);
    cudaFreeHost(hostFlag_);
    cudaFreeHost(hostLoss_);
    cudaFree(deviceFlag_);
    cudaFree(deviceLoss_);
    cudaEventDestroy(ready_);
    cudaEventDestroy(synced_);
    cudaStreamDestroy(compute_);
    cudaStreamDestroy(comm_);
  }

  const char *backend() const override { return "cuda"; }
  std::string describe() const override { return name_; }

  //===--- Memory --------------------------------------------------------===//
  void *allocate(size_t bytes) override {
    if (bytes == 0)
      return nullptr;
    void *p = nullptr;
    HDRT_CUDA_CHECK(cudaMalloc(&p, bytes));
    HDRT_CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, compute_));
    memory_.allocated(bytes);
    return p;
  }
  void release(void *memory, size_t bytes) override {
    if (memory)
      memory_.released(bytes);
    cudaFree(memory);
  }
  void upload(void *dst, const void *host, size_t bytes) override {
    waitForGradients();
    HDRT_CUDA_CHECK(cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice,
                          compute_));
  }
  void download(void *host, const void *src, size_t bytes) override {
    waitForGradients();
    HDRT_CUDA_CHECK(cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost,
                          compute_));
    HDRT_CUDA_CHECK(cudaStreamSynchronize(compute_));
  }
  void fence() override {
    HDRT_CUDA_CHECK(cudaStreamSynchronize(compute_));
    HDRT_CUDA_CHECK(cudaStreamSynchronize(comm_));
  }

  void fill(float *dst, int64_t count, float value) override {
    cuda::fill(compute_, dst, count, value);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void copyRegion(const float *src, const Box &srcBox, float *dst,
                  const Box &dstBox, const Box &region) override {
    cuda::copyRegion(compute_, src, srcBox, dst, dstBox, region, false);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void addRegion(const float *src, const Box &srcBox, float *dst,
                 const Box &dstBox, const Box &region) override {
    cuda::copyRegion(compute_, src, srcBox, dst, dstBox, region, true);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void copyRows(float *dst, int64_t dstStride, const float *src,
                int64_t srcStride, int64_t rows, int64_t columns) override {
    if (rows <= 0 || columns <= 0)
      return;
    if (rows == 1 || (dstStride == columns && srcStride == columns))
      HDRT_CUDA_CHECK(cudaMemcpyAsync(dst, src, size_t(rows * columns) * sizeof(float),
                            cudaMemcpyDeviceToDevice, compute_));
    else
      HDRT_CUDA_CHECK(cudaMemcpy2DAsync(dst, dstStride * sizeof(float), src,
                              srcStride * sizeof(float),
                              columns * sizeof(float), rows,
                              cudaMemcpyDeviceToDevice, compute_));
  }
  bool allFinite(const float *data, int64_t count) override {
    waitForGradients();
    HDRT_CUDA_CHECK(cudaMemsetAsync(deviceFlag_, 0, sizeof(int), compute_));
    cuda::findNonFinite(compute_, data, count, deviceFlag_);
    HDRT_CUDA_CHECK(cudaGetLastError());
    HDRT_CUDA_CHECK(cudaMemcpyAsync(hostFlag_, deviceFlag_, sizeof(int),
                          cudaMemcpyDeviceToHost, compute_));
    HDRT_CUDA_CHECK(cudaStreamSynchronize(compute_));
    return *hostFlag_ == 0;
  }

  /// Activations are NCHW here (channelBlock() is 1).
  static void plainLayout(int64_t block) {
    if (block != 1)
      throw DeviceError("cuda: kernels take NCHW tiles, not nChw" +
                        std::to_string(block) + "c");
  }
  static void plainLayouts(const TileLayouts &l) {
    plainLayout(l.in);
    plainLayout(l.out);
  }

  //===--- Convolution on cuDNN -------------------------------------------===//
  void conv2dForward(const Conv2dShape &s, const float *in, const float *w,
                     const float *bias, float *out) override {
    plainLayouts(s.layouts);
    ConvPlan &p = convPlans_.get(dnn_, s);
    const float one = 1, zero = 0;
    const float *x = padded(p, in);
    HDRT_CUDA_CHECK(cudnnConvolutionForward(dnn_, &one, p.x, x, p.w, w, p.fwdConv, p.fwd,
                                  workspace_.get(p.workspace), p.workspace,
                                  &zero, p.y, out));
    if (bias)
      HDRT_CUDA_CHECK(cudnnAddTensor(dnn_, &one, p.bias, bias, &one, p.y, out));
  }
  void conv2dBackwardData(const Conv2dShape &s, const float *dOut,
                          const float *w, float *dIn) override {
    plainLayouts(s.layouts);
    ConvPlan &p = convPlans_.get(dnn_, s);
    const float one = 1, zero = 0;
    float *dx = p.padCopy ? static_cast<float *>(padScratch_.get(
                                p.paddedBox.volume() * sizeof(float)))
                          : dIn;
    HDRT_CUDA_CHECK(cudnnConvolutionBackwardData(dnn_, &one, p.w, w, p.y, dOut,
                                       p.dataConv, p.bwdData, workspace_.get(p.workspace),
                                       p.workspace, &zero, p.x, dx));
    if (p.padCopy) {
      cuda::copyRegion(compute_, dx, p.paddedBox, dIn, p.inBox, p.inBox,
                       false);
      HDRT_CUDA_CHECK(cudaGetLastError());
    }
  }
  void conv2dBackwardWeights(const Conv2dShape &s, const float *in,
                             const float *dOut, float *dW,
                             float *dBias) override {
    plainLayouts(s.layouts);
    ConvPlan &p = convPlans_.get(dnn_, s);
    const float one = 1, zero = 0;
    const float *x = padded(p, in);
    HDRT_CUDA_CHECK(cudnnConvolutionBackwardFilter(
        dnn_, &one, p.x, x, p.y, dOut, p.filterConv, p.bwdFilter,
        workspace_.get(p.workspace), p.workspace, &zero, p.w, dW));
    if (dBias)
      HDRT_CUDA_CHECK(cudnnConvolutionBackwardBias(dnn_, &one, p.y, dOut, &zero, p.bias,
                                         dBias));
  }
  void fillChannels(int64_t n, int64_t c, int64_t hw, const float *perChannel,
                    float *out) override {
    cuda::fillChannels(compute_, n, c, hw, perChannel, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void sumChannels(int64_t n, int64_t c, int64_t hw, const float *in,
                   float *out) override {
    cuda::sumChannels(compute_, n, c, hw, in, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  //===--- Pooling and element-wise layers --------------------------------===//
  void pool2dForward(const Pool2dShape &s, const float *in, float *out,
                     void *) override {
    plainLayouts(s.layouts);
    cuda::pool2dForward(compute_, s, in, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void pool2dBackward(const Pool2dShape &s, const float *in, const float *dOut,
                      float *dIn, const void *) override {
    plainLayouts(s.layouts);
    cuda::pool2dBackward(compute_, s, in, dOut, dIn);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void reluForward(int64_t count, const float *in, float *out) override {
    cuda::reluForward(compute_, count, in, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void reluBackward(int64_t count, const float *in, const float *dOut,
                    float *dIn) override {
    cuda::reluBackward(compute_, count, in, dOut, dIn);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void add(int64_t count, const float *a, const float *b, float *out,
           bool relu) override {
    cuda::add(compute_, count, a, b, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
    if (relu) // a second pass, as batchNormForward's
      reluForward(count, out, out);
  }
  void dropout(const TileRegion &tile, uint64_t seed, uint64_t stream,
               float ratio, const float *in, float *out) override {
    cuda::dropout(compute_, tile, seed, stream, ratio, in, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void activationForward(const Activation &f, int64_t count, const float *in,
                         float *out) override {
    cuda::activationForward(compute_, f, count, in, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void activationBackward(const Activation &f, int64_t count, const float *in,
                          const float *dOut, float *dIn) override {
    cuda::activationBackward(compute_, f, count, in, dOut, dIn);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void binaryForward(BinaryFunction f, int64_t rows, int64_t cols,
                     bool broadcast, const float *a, const float *b,
                     float *out) override {
    cuda::binaryForward(compute_, f, rows, cols, broadcast, a, b, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void binaryBackward(BinaryFunction f, int64_t rows, int64_t cols,
                      bool broadcast, const float *a, const float *b,
                      const float *dOut, float *dA, float *dB) override {
    cuda::binaryBackward(compute_, f, rows, cols, broadcast, a, b, dOut, dA,
                         dB);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void sgdMomentum(int64_t count, float lr, float momentum, float weightDecay,
                   bool nesterov, float *param, const float *grad,
                   float *velocity) override {
    waitForGradients();
    cuda::sgdMomentum(compute_, count, lr, momentum, weightDecay, nesterov,
                      param, grad, velocity);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  //===--- Fully-connected layers on cuBLAS --------------------------------===//
  // Row-major [n, f] x [k, f]^T is column-major out^T = W^T-view * in^T.
  void linearForward(int64_t n, int64_t f, int64_t k, const float *in,
                     const float *w, const float *bias, float *out) override {
    const float one = 1, zero = 0;
    HDRT_CUDA_CHECK(cublasSgemm(blas_, CUBLAS_OP_T, CUBLAS_OP_N, int(k), int(n), int(f),
                      &one, w, int(f), in, int(f), &zero, out, int(k)));
    if (bias) {
      cuda::addRowBias(compute_, n, k, bias, out);
      HDRT_CUDA_CHECK(cudaGetLastError());
    }
  }
  void linearBackwardData(int64_t n, int64_t f, int64_t k, const float *dOut,
                          const float *w, float *dIn) override {
    const float one = 1, zero = 0;
    HDRT_CUDA_CHECK(cublasSgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_N, int(f), int(n), int(k),
                      &one, w, int(f), dOut, int(k), &zero, dIn, int(f)));
  }
  void linearBackwardWeights(int64_t n, int64_t f, int64_t k, const float *in,
                             const float *dOut, float *dW,
                             float *dBias) override {
    const float one = 1, zero = 0;
    HDRT_CUDA_CHECK(cublasSgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_T, int(f), int(k), int(n),
                      &one, in, int(f), dOut, int(k), &zero, dW, int(f)));
    if (dBias) {
      cuda::sumRows(compute_, n, k, dOut, dBias);
      HDRT_CUDA_CHECK(cudaGetLastError());
    }
  }

  //===--- Batch norm and the loss -----------------------------------------===//
  void batchNormPartialSums(int64_t n, int64_t c, int64_t hw, int64_t block,
                            const float *in, double *sums) override {
    plainLayout(block);
    cuda::batchNormPartialSums(compute_, n, c, hw, in,
                               batchNormScratch(n, c, hw), sums);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void batchNormStatistics(int64_t c, int64_t count, double eps,
                           const double *sums, float *mean,
                           float *invStd) override {
    cuda::batchNormStatistics(compute_, c, count, eps, sums, mean, invStd);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void batchNormRunningUpdate(int64_t c, int64_t count, double momentum,
                              const double *sums, float *runningMean,
                              float *runningVar) override {
    cuda::batchNormRunningUpdate(compute_, c, count, momentum, sums,
                                 runningMean, runningVar);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void batchNormInvStd(int64_t c, double eps, const float *var,
                       float *invStd) override {
    cuda::batchNormInvStd(compute_, c, eps, var, invStd);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void batchNormForward(int64_t n, int64_t c, int64_t hw, int64_t block,
                        const float *in, const float *mean,
                        const float *invStd, const float *scale,
                        const float *shift, float *out,
                        bool relu) override {
    plainLayout(block);
    cuda::batchNormForward(compute_, n, c, hw, in, mean, invStd, scale, shift,
                           out);
    HDRT_CUDA_CHECK(cudaGetLastError());
    if (relu) // a second pass, in place: the GPU is not memory-starved here
      reluForward(n * c * hw, out, out);
  }
  void batchNormBackwardPartialSums(int64_t n, int64_t c, int64_t hw,
                                    int64_t block, const float *in,
                                    const float *dOut, const float *mean,
                                    const float *invStd,
                                    double *sums) override {
    plainLayout(block);
    cuda::batchNormBackwardPartialSums(compute_, n, c, hw, in, dOut, mean,
                                       invStd, batchNormScratch(n, c, hw),
                                       sums);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void batchNormParamGrads(int64_t c, const double *sums, float *dScale,
                           float *dShift) override {
    cuda::batchNormParamGrads(compute_, c, sums, dScale, dShift);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void batchNormBackwardData(int64_t n, int64_t c, int64_t hw, int64_t block,
                             int64_t count, const float *in,
                             const float *dOut, const float *mean,
                             const float *invStd, const float *scale,
                             const double *sums, float *dIn) override {
    plainLayout(block);
    cuda::batchNormBackwardData(compute_, n, c, hw, count, in, dOut, mean,
                                invStd, scale, sums, dIn);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void layerNormPartialSums(int64_t n, int64_t c, int64_t hw, const float *in,
                            double *sums) override {
    cuda::layerNormPartialSums(compute_, n, c, hw, in, sums);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void layerNormForward(int64_t n, int64_t c, int64_t hw, int64_t channels,
                        double eps, const double *sums, const float *in,
                        const float *scale, const float *shift, float *mean,
                        float *invStd, float *out) override {
    cuda::layerNormForward(compute_, n, c, hw, channels, eps, sums, in, scale,
                           shift, mean, invStd, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void layerNormBackwardPartialSums(int64_t n, int64_t c, int64_t hw,
                                    const float *in, const float *dOut,
                                    const float *mean, const float *invStd,
                                    const float *scale,
                                    double *sums) override {
    cuda::layerNormBackwardPartialSums(compute_, n, c, hw, in, dOut, mean,
                                       invStd, scale, sums);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void layerNormBackward(int64_t n, int64_t c, int64_t hw, int64_t channels,
                         const float *in, const float *dOut, const float *mean,
                         const float *invStd, const float *scale,
                         const double *sums, float *dIn, float *dScale,
                         float *dShift) override {
    cuda::layerNormBackward(compute_, n, c, hw, channels, in, dOut, mean,
                            invStd, scale, sums, dIn, dScale, dShift);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void channelShuffle(int64_t n, int64_t c, int64_t hw, int64_t groups,
                      const float *in, float *out) override {
    cuda::channelShuffle(compute_, n, c, hw, groups, in, out);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void softmaxPartialMax(int64_t n, int64_t k, const float *logits,
                         float *max) override {
    cuda::softmaxPartialMax(compute_, n, k, logits, max);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  void softmaxPartialSum(int64_t n, int64_t k, const float *logits,
                         const float *max, double *sum) override {
    cuda::softmaxPartialSum(compute_, n, k, logits, max, sum);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }
  double softmaxCrossEntropyPartialLoss(int64_t n, int64_t k,
                                        int64_t classOffset,
                                        const float *logits,
                                        const int32_t *labels,
                                        const float *max,
                                        const double *sum) override {
    cuda::softmaxCrossEntropyPartialLoss(compute_, n, k, classOffset, logits,
                                         labels, max, sum, deviceLoss_);
    HDRT_CUDA_CHECK(cudaGetLastError());
    HDRT_CUDA_CHECK(cudaMemcpyAsync(hostLoss_, deviceLoss_, sizeof(double),
                          cudaMemcpyDeviceToHost, compute_));
    HDRT_CUDA_CHECK(cudaStreamSynchronize(compute_));
    return *hostLoss_;
  }
  void softmaxCrossEntropyBackward(int64_t n, int64_t k, int64_t classOffset,
                                   int64_t globalBatch, const float *logits,
                                   const int32_t *labels, const float *max,
                                   const double *sum,
                                   float *dLogits) override {
    cuda::softmaxCrossEntropyBackward(compute_, n, k, classOffset,
                                      globalBatch, logits, labels, max, sum,
                                      dLogits);
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  //===--- Communication on NCCL -------------------------------------------===//
  /// Every rank calls this for every MPI_Comm_split of the program (both
  /// are collective over the world), so the splits below line up.
  void groupCreated(MPI_Comm group, int color, int key) override {
    if (!world_)
      return;
    int nccl = color == MPI_UNDEFINED ? NCCL_SPLIT_NOCOLOR : color;
    GroupComms comms;
    HDRT_CUDA_CHECK(ncclCommSplit(world_, nccl, key, &comms.compute, nullptr));
    HDRT_CUDA_CHECK(ncclCommSplit(worldGradients_, nccl, key, &comms.gradients,
                        nullptr));
    if (comms.compute)
      groups_[group] = comms;
  }

  int allReduce(MPI_Comm comm, void *data, int64_t count, ElementType type,
                ReduceOp op) override {
    if (ncclComm_t c = ncclOf(comm, /*gradients=*/false))
      HDRT_CUDA_CHECK(ncclAllReduce(data, data, size_t(count), ncclTypeOf(type),
                          op == ReduceOp::Sum ? ncclSum : ncclMax, c,
                          compute_));
    return 0;
  }
  int allReduceGradients(MPI_Comm comm, float *data, int64_t count) override {
    ncclComm_t c = ncclOf(comm, /*gradients=*/true);
    if (!c)
      return 0;
    // The gradients are complete when the compute stream reaches here.
    HDRT_CUDA_CHECK(cudaEventRecord(ready_, compute_));
    HDRT_CUDA_CHECK(cudaStreamWaitEvent(comm_, ready_, 0));
    HDRT_CUDA_CHECK(ncclAllReduce(data, data, size_t(count), ncclFloat32, ncclSum, c,
                        comm_));
    gradientsPending_ = true;
    return 0;
  }

  // Plans name world ranks: the executor passes MPI_COMM_WORLD.
  int exchangeForward(MPI_Comm comm, const std::vector<mpi::Move> &plan,
                      mpi::Side side, const float *tile, float *in) override {
    requireWorld(comm);
    if (side.tileBox && side.inBox)
      copyRegion(tile, *side.tileBox, in, *side.inBox,
                 intersect(*side.tileBox, *side.inBox));
    exchange(plan, /*forward=*/true, side, tile, in);
    return 0;
  }
  int exchangeBackward(MPI_Comm comm, const std::vector<mpi::Move> &plan,
                       mpi::Side side, float *dTile,
                       const float *dIn) override {
    requireWorld(comm);
    if (side.tileBox && side.inBox)
      addRegion(dIn, *side.inBox, dTile, *side.tileBox,
                intersect(*side.tileBox, *side.inBox));
    exchange(plan, /*forward=*/false, side, dIn, dTile);
    return 0;
  }

private:
  /// The GPU of this rank's index on its node (torchrun's LOCAL_RANK when
  /// set): one GPU per rank, or each rank's own when the launcher made one
  /// GPU visible to each.
  void pickGpu(MPI_Comm node, std::array<char, 32> &busId) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
      throw DeviceError(std::string("no CUDA device: ") +
                        (e != cudaSuccess ? cudaGetErrorString(e)
                                          : "the driver reports none"));
    int local = 0;
    if (const char *s = std::getenv("LOCAL_RANK"))
      local = std::atoi(s);
    else
      MPI_Comm_rank(node, &local);
    gpu_ = local % count;
    HDRT_CUDA_CHECK(cudaSetDevice(gpu_));
    HDRT_CUDA_CHECK(cudaDeviceGetPCIBusId(busId.data(), int(busId.size()), gpu_));
  }

  /// Why this rank cannot keep its GPU: another rank of the node picked the
  /// same one (more ranks than GPUs, or every rank shown the same one).
  /// Collective over the node.
  std::string sharedGpu(MPI_Comm node, const std::array<char, 32> &busId) {
    int local = 0, localRanks = 1;
    MPI_Comm_rank(node, &local);
    MPI_Comm_size(node, &localRanks);
    std::vector<char> all(busId.size() * size_t(localRanks));
    MPI_Allgather(busId.data(), int(busId.size()), MPI_CHAR, all.data(),
                  int(busId.size()), MPI_CHAR, node);
    if (busId[0] == 0)
      return {};
    for (int other = 0; other < localRanks; ++other)
      if (other != local &&
          std::strncmp(all.data() + other * busId.size(), busId.data(),
                       busId.size()) == 0)
        return std::to_string(localRanks) + " ranks on this node share " +
               "GPUs (ranks " + std::to_string(std::min(local, other)) +
               " and " + std::to_string(std::max(local, other)) +
               " of the node both have " + busId.data() +
               "): start one rank per GPU (mpirun -np, or -npernode on " +
               "several nodes), each seeing its own";
    return {};
  }

  void createStreamsAndHandles() {
    cudaDeviceProp props;
    HDRT_CUDA_CHECK(cudaGetDeviceProperties(&props, gpu_));
    name_ = props.name;
    HDRT_CUDA_CHECK(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
    HDRT_CUDA_CHECK(cudaStreamCreateWithFlags(&comm_, cudaStreamNonBlocking));
    HDRT_CUDA_CHECK(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
    HDRT_CUDA_CHECK(cudaEventCreateWithFlags(&synced_, cudaEventDisableTiming));
    HDRT_CUDA_CHECK(cudnnCreate(&dnn_));
    HDRT_CUDA_CHECK(cudnnSetStream(dnn_, compute_));
    HDRT_CUDA_CHECK(cublasCreate(&blas_));
    HDRT_CUDA_CHECK(cublasSetStream(blas_, compute_));
    HDRT_CUDA_CHECK(cudaMallocHost(&hostFlag_, sizeof(int)));
    HDRT_CUDA_CHECK(cudaMallocHost(&hostLoss_, sizeof(double)));
    HDRT_CUDA_CHECK(cudaMalloc(&deviceFlag_, sizeof(int)));
    HDRT_CUDA_CHECK(cudaMalloc(&deviceLoss_, sizeof(double)));
  }

  /// A group's two NCCL communicators: one for the compute stream, one
  /// for the gradient stream.
  struct GroupComms {
    ncclComm_t compute = nullptr, gradients = nullptr;
  };

  /// The NCCL communicator of an MPI communicator for the compute or the
  /// gradient stream; null when the group has one member (nothing to
  /// combine).
  ncclComm_t ncclOf(MPI_Comm comm, bool gradients) {
    if (comm == MPI_COMM_NULL || comm == MPI_COMM_SELF || !world_)
      return nullptr;
    if (comm == MPI_COMM_WORLD)
      return gradients ? worldGradients_ : world_;
    auto it = groups_.find(comm);
    if (it == groups_.end())
      throw DeviceError("a group without an NCCL communicator");
    ncclComm_t c = gradients ? it->second.gradients : it->second.compute;
    int size = 1;
    HDRT_CUDA_CHECK(ncclCommCount(c, &size));
    return size > 1 ? c : nullptr;
  }

  static void requireWorld(MPI_Comm comm) {
    if (comm != MPI_COMM_WORLD)
      throw DeviceError("transfers run on the world communicator only");
  }

  /// One direction of a transfer plan: boxes packed from `from` are sent,
  /// received boxes are copied (forward) or added (backward) into `to`.
  /// Forward sends from the producer tile to the consumer's input box;
  /// backward the other way.
  void exchange(const std::vector<mpi::Move> &plan, bool forward,
                mpi::Side side, const float *from, float *to) {
    const Box *fromBox = forward ? side.tileBox : side.inBox;
    const Box *toBox = forward ? side.inBox : side.tileBox;
    size_t total = 0;
    for (const mpi::Move &m : plan) {
      int sender = forward ? m.src : m.dst, receiver = forward ? m.dst : m.src;
      if (sender == rank_ || receiver == rank_)
        total += size_t(m.box.volume());
    }
    if (total == 0)
      return;
    if (!world_)
      throw DeviceError("a transfer between ranks in a one-rank job");
    float *staging =
        static_cast<float *>(exchangeScratch_.get(total * sizeof(float)));
    size_t offset = 0;
    for (const mpi::Move &m : plan) // pack what this rank sends
      if ((forward ? m.src : m.dst) == rank_) {
        cuda::copyRegion(compute_, from, *fromBox, staging + offset, m.box,
                         m.box, false);
        offset += size_t(m.box.volume());
      }
    HDRT_CUDA_CHECK(cudaGetLastError());
    HDRT_CUDA_CHECK(ncclGroupStart());
    offset = 0;
    for (const mpi::Move &m : plan)
      if ((forward ? m.src : m.dst) == rank_) {
        HDRT_CUDA_CHECK(ncclSend(staging + offset, size_t(m.box.volume()), ncclFloat32,
                       forward ? m.dst : m.src, world_, compute_));
        offset += size_t(m.box.volume());
      }
    size_t received = offset;
    for (const mpi::Move &m : plan)
      if ((forward ? m.dst : m.src) == rank_) {
        HDRT_CUDA_CHECK(ncclRecv(staging + offset, size_t(m.box.volume()), ncclFloat32,
                       forward ? m.src : m.dst, world_, compute_));
        offset += size_t(m.box.volume());
      }
    HDRT_CUDA_CHECK(ncclGroupEnd());
    offset = received;
    for (const mpi::Move &m : plan) // unpack what this rank received
      if ((forward ? m.dst : m.src) == rank_) {
        cuda::copyRegion(compute_, staging + offset, m.box, to, *toBox, m.box,
                         /*add=*/!forward);
        offset += size_t(m.box.volume());
      }
    HDRT_CUDA_CHECK(cudaGetLastError());
  }

  void waitForGradients() {
    if (!gradientsPending_)
      return;
    HDRT_CUDA_CHECK(cudaEventRecord(synced_, comm_));
    HDRT_CUDA_CHECK(cudaStreamWaitEvent(compute_, synced_, 0));
    gradientsPending_ = false;
  }

  double *batchNormScratch(int64_t n, int64_t c, int64_t hw) {
    return static_cast<double *>(bnScratch_.get(
        size_t(cuda::batchNormScratchCount(n, c, hw)) * sizeof(double)));
  }

  /// The input as cuDNN convolves it: `in` itself, or its zero-padded copy.
  const float *padded(ConvPlan &p, const float *in) {
    if (!p.padCopy)
      return in;
    float *copy = static_cast<float *>(
        padScratch_.get(p.paddedBox.volume() * sizeof(float)));
    cuda::fill(compute_, copy, p.paddedBox.volume(), 0.0f);
    cuda::copyRegion(compute_, in, p.inBox, copy, p.paddedBox, p.inBox, false);
    HDRT_CUDA_CHECK(cudaGetLastError());
    return copy;
  }

  DeviceOptions options_;
  int gpu_ = 0, rank_ = 0, ranks_ = 1;
  std::string name_;
  cudaStream_t compute_ = nullptr, comm_ = nullptr;
  cudaEvent_t ready_ = nullptr, synced_ = nullptr;
  bool gradientsPending_ = false;
  cudnnHandle_t dnn_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  ncclComm_t world_ = nullptr, worldGradients_ = nullptr;
  std::map<MPI_Comm, GroupComms> groups_;
  ConvPlans convPlans_{options_.tf32};
  Scratch workspace_{memory_}, padScratch_{memory_},
      exchangeScratch_{memory_}, bnScratch_{memory_};
  int *hostFlag_ = nullptr, *deviceFlag_ = nullptr;
  double *hostLoss_ = nullptr, *deviceLoss_ = nullptr;
};

} // namespace

std::unique_ptr<Device> makeCudaDevice(const DeviceOptions &options) {
  return std::make_unique<CudaDevice>(options);
}

} // namespace hdrt
