//===- CudaDevice.cpp - one GPU: setup, memory, copies --------------------===//
//
// The rank's GPU, picked and checked with every other rank before NCCL
// starts (a rank that gave up alone would leave the others waiting in
// NCCL's initialization for ever), its streams and library handles, its
// memory and the copies between tensor boxes. Communication is in
// CudaCollectives.cpp; the layer kinds' kernels in runtime/kernels/.
//
//===----------------------------------------------------------------------===//

#include "CudaDevice.h"

#include "Check.h"
#include "DeviceKernels.h"

#include "hdrt/common/StridedCopy.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace hdrt {

namespace cuda {

namespace {

/// Every rank throws when any rank could not set up its GPU, with the
/// first failing rank's reason.
void throwIfAnyRankFailed(const std::string &problem, int rank) {
  int first = problem.empty() ? INT_MAX : rank;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == INT_MAX)
    return;
  int length = rank == first ? int(problem.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, first, MPI_COMM_WORLD);
  std::string text = rank == first ? problem : std::string(size_t(length), ' ');
  MPI_Bcast(text.data(), length, MPI_CHAR, first, MPI_COMM_WORLD);
  throw DeviceError(
      rank == first ? text : "rank " + std::to_string(first) + ": " + text);
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

} // namespace

CudaDevice::CudaDevice(const DeviceOptions &options) : options_(options) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  // Each rank sets up its GPU, then all agree before NCCL starts. The steps
  // that talk to other ranks run on every rank, failed or not.
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                      &node);
  std::array<char, 32> busId{};
  std::string problem = failureOf([&] { pickGpu(node, busId); });
  if (std::string clash = sharedGpu(node, busId); problem.empty())
    problem = clash;
  MPI_Comm_free(&node);
  if (problem.empty())
    problem = failureOf([&] { createStreamsAndHandles(); });
  throwIfAnyRankFailed(problem, rank_);
  if (ranks_ > 1)
    startNccl();
  using std::chrono::milliseconds;
  watchdog_ = std::make_unique<Watchdog>(
      milliseconds(int64_t(options_.watchdogSeconds * 1e3)), milliseconds(500),
      [this] { return ncclProblem(); },
      [this](const std::string &why) { abortJob(why); });
}

CudaDevice::~CudaDevice() {
  watchdog_.reset(); // before what it polls goes
  // Best effort: the process is ending; errors here have no one to tell.
  cudaStreamSynchronize(compute_);
  cudaStreamSynchronize(comm_);
  releaseKernelSets(); // they use the handles and streams below
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
  cudaFree(deviceFlag_);
  cudaEventDestroy(ready_);
  cudaEventDestroy(synced_);
  cudaEventDestroy(uploaded_);
  for (cudaEvent_t e : marks_)
    cudaEventDestroy(e);
  cudaStreamDestroy(compute_);
  cudaStreamDestroy(comm_);
}

void CudaDevice::startNccl() {
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

/// The GPU of this rank's index on its node (torchrun's LOCAL_RANK when
/// set): one GPU per rank, or each rank's own when the launcher made one
/// GPU visible to each.
void CudaDevice::pickGpu(MPI_Comm node, std::array<char, 32> &busId) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0)
    throw DeviceError(
        std::string("no CUDA device: ") +
        (e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports none"));
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
std::string CudaDevice::sharedGpu(MPI_Comm node,
                                  const std::array<char, 32> &busId) {
  int local = 0, localRanks = 1;
  MPI_Comm_rank(node, &local);
  MPI_Comm_size(node, &localRanks);
  std::vector<char> all(busId.size() * size_t(localRanks));
  MPI_Allgather(busId.data(), int(busId.size()), MPI_CHAR, all.data(),
                int(busId.size()), MPI_CHAR, node);
  if (busId[0] == 0)
    return {};
  for (int other = 0; other < localRanks; ++other)
    if (other != local && std::strncmp(all.data() + other * busId.size(),
                                       busId.data(), busId.size()) == 0)
      return std::to_string(localRanks) + " ranks on this node share " +
             "GPUs (ranks " + std::to_string(std::min(local, other)) + " and " +
             std::to_string(std::max(local, other)) +
             " of the node both have " + busId.data() +
             "): start one rank per GPU (mpirun -np, or -npernode on " +
             "several nodes), each seeing its own";
  return {};
}

void CudaDevice::createStreamsAndHandles() {
  cudaDeviceProp props;
  HDRT_CUDA_CHECK(cudaGetDeviceProperties(&props, gpu_));
  name_ = props.name;
  HDRT_CUDA_CHECK(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
  HDRT_CUDA_CHECK(cudaStreamCreateWithFlags(&comm_, cudaStreamNonBlocking));
  HDRT_CUDA_CHECK(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
  HDRT_CUDA_CHECK(cudaEventCreateWithFlags(&synced_, cudaEventDisableTiming));
  HDRT_CUDA_CHECK(cudaEventCreateWithFlags(&uploaded_, cudaEventDisableTiming));
  HDRT_CUDA_CHECK(cudnnCreate(&dnn_));
  HDRT_CUDA_CHECK(cudnnSetStream(dnn_, compute_));
  HDRT_CUDA_CHECK(cublasCreate(&blas_));
  HDRT_CUDA_CHECK(cublasSetStream(blas_, compute_));
  HDRT_CUDA_CHECK(cudaMallocHost(&hostFlag_, sizeof(int)));
  HDRT_CUDA_CHECK(cudaMalloc(&deviceFlag_, sizeof(int)));
}

void CudaDevice::requirePlainLayout(int64_t block) {
  if (block != 1)
    throw DeviceError("cuda: kernels take NCHW tiles, not nChw" +
                      std::to_string(block) + "c");
}

void *CudaDevice::allocate(size_t bytes) {
  if (bytes == 0)
    return nullptr;
  void *p = nullptr;
  HDRT_CUDA_CHECK(cudaMalloc(&p, bytes));
  HDRT_CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, compute_));
  memory_.allocated(bytes);
  return p;
}

void CudaDevice::release(void *memory, size_t bytes) {
  if (memory)
    memory_.released(bytes);
  cudaFree(memory);
}

void *CudaDevice::allocateHost(size_t bytes) {
  void *memory = nullptr;
  HDRT_CUDA_CHECK(cudaMallocHost(&memory, bytes));
  return memory;
}

void CudaDevice::releaseHost(void *memory, size_t) { cudaFreeHost(memory); }

void CudaDevice::upload(void *dst, const void *host, size_t bytes) {
  waitForGradients();
  HDRT_CUDA_CHECK(
      cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, compute_));
  HDRT_CUDA_CHECK(cudaEventRecord(uploaded_, compute_));
}

int64_t CudaDevice::markTime() {
  if (marksUsed_ == marks_.size()) {
    cudaEvent_t event;
    HDRT_CUDA_CHECK(cudaEventCreate(&event));
    marks_.push_back(event);
  }
  HDRT_CUDA_CHECK(cudaEventRecord(marks_[marksUsed_], compute_));
  return int64_t(marksUsed_++);
}

double CudaDevice::secondsBetween(int64_t from, int64_t to) {
  // One wait, for the last mark recorded, serves every pair read after it.
  if (size_t(to) >= marksDone_) {
    Watchdog::Wait wait = waiting("the step's timing events");
    HDRT_CUDA_CHECK(cudaEventSynchronize(marks_.at(marksUsed_ - 1)));
    marksDone_ = marksUsed_;
  }
  float ms = 0;
  HDRT_CUDA_CHECK(cudaEventElapsedTime(&ms, marks_.at(size_t(from)),
                                       marks_.at(size_t(to))));
  return double(ms) / 1e3;
}

void CudaDevice::finishUploads() {
  Watchdog::Wait wait = waiting("an upload to the GPU");
  HDRT_CUDA_CHECK(cudaEventSynchronize(uploaded_));
}

void CudaDevice::download(void *host, const void *src, size_t bytes) {
  waitForGradients();
  HDRT_CUDA_CHECK(
      cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, compute_));
  Watchdog::Wait wait = waiting("a download from the GPU");
  HDRT_CUDA_CHECK(cudaStreamSynchronize(compute_));
}

void CudaDevice::fence() {
  Watchdog::Wait wait = waiting("the GPU's work to finish");
  HDRT_CUDA_CHECK(cudaStreamSynchronize(compute_));
  HDRT_CUDA_CHECK(cudaStreamSynchronize(comm_));
}

void CudaDevice::fill(float *dst, int64_t count, float value) {
  cuda::fill(compute_, dst, count, value);
  HDRT_CUDA_CHECK(cudaGetLastError());
}

void CudaDevice::copyRegion(const float *src, const Box &srcBox, float *dst,
                            const Box &dstBox, const Box &region) {
  // Runs of a few KiB or more go through the copy engines as one strided
  // copy (a concatenation's operand, a sample slice, a halo of rows); the
  // rest through the element-wise kernel.
  constexpr int64_t kShortestRun = 1024;
  std::optional<StridedCopy> c = stridedCopyOf(srcBox, dstBox, region);
  if (c && c->run >= kShortestRun) {
    HDRT_CUDA_CHECK(cudaMemcpy2DAsync(
        dst + c->dstOffset, size_t(c->dstStride) * sizeof(float),
        src + c->srcOffset, size_t(c->srcStride) * sizeof(float),
        size_t(c->run) * sizeof(float), size_t(c->rows),
        cudaMemcpyDeviceToDevice, compute_));
    return;
  }
  cuda::copyRegion(compute_, src, srcBox, dst, dstBox, region, false);
  HDRT_CUDA_CHECK(cudaGetLastError());
}

void CudaDevice::addRegion(const float *src, const Box &srcBox, float *dst,
                           const Box &dstBox, const Box &region) {
  cuda::copyRegion(compute_, src, srcBox, dst, dstBox, region, true);
  HDRT_CUDA_CHECK(cudaGetLastError());
}

void CudaDevice::copyRows(float *dst, int64_t dstStride, const float *src,
                          int64_t srcStride, int64_t rows, int64_t columns) {
  if (rows <= 0 || columns <= 0)
    return;
  if (rows == 1 || (dstStride == columns && srcStride == columns))
    HDRT_CUDA_CHECK(cudaMemcpyAsync(dst, src,
                                    size_t(rows * columns) * sizeof(float),
                                    cudaMemcpyDeviceToDevice, compute_));
  else
    HDRT_CUDA_CHECK(cudaMemcpy2DAsync(
        dst, dstStride * sizeof(float), src, srcStride * sizeof(float),
        columns * sizeof(float), rows, cudaMemcpyDeviceToDevice, compute_));
}

bool CudaDevice::allFinite(const float *data, int64_t count) {
  waitForGradients();
  HDRT_CUDA_CHECK(cudaMemsetAsync(deviceFlag_, 0, sizeof(int), compute_));
  cuda::findNonFinite(compute_, data, count, deviceFlag_);
  HDRT_CUDA_CHECK(cudaGetLastError());
  HDRT_CUDA_CHECK(cudaMemcpyAsync(hostFlag_, deviceFlag_, sizeof(int),
                                  cudaMemcpyDeviceToHost, compute_));
  Watchdog::Wait wait = waiting("a check for non-finite values");
  HDRT_CUDA_CHECK(cudaStreamSynchronize(compute_));
  return *hostFlag_ == 0;
}

} // namespace cuda

std::unique_ptr<Device> makeCudaDevice(const DeviceOptions &options) {
  return std::make_unique<cuda::CudaDevice>(options);
}

} // namespace hdrt
