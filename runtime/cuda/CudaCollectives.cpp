//===- CudaCollectives.cpp - one GPU's communication on NCCL --------------===//
//
// The world communicator and a second one for the gradient stream, split
// again for every set of ranks the program makes a group of (once per set:
// exec/Program.cpp), sharing the parent's resources; all-reduces, with the
// gradients' gathered into buckets summed in one NCCL group; and transfer
// plans as grouped ncclSend/ncclRecv on the world communicator, packed into
// and unpacked from one staging buffer.
//
//===----------------------------------------------------------------------===//

#include "CudaDevice.h"

#include "Check.h"
#include "DeviceKernels.h"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace hdrt::cuda {

namespace {

ncclDataType_t ncclTypeOf(ElementType t) {
  return t == ElementType::F32 ? ncclFloat32 : ncclFloat64;
}

// Plans name world ranks: the executor passes MPI_COMM_WORLD.
void requireWorld(MPI_Comm comm) {
  if (comm != MPI_COMM_WORLD)
    throw DeviceError("transfers run on the world communicator only");
}

} // namespace

/// Every rank calls this for every MPI_Comm_split of the program (both are
/// collective over the world), so the splits below line up.
void CudaDevice::groupCreated(MPI_Comm group, int color, int key) {
  if (!world_)
    return;
  int nccl = color == MPI_UNDEFINED ? NCCL_SPLIT_NOCOLOR : color;
  // A child shares its parent's buffers and proxy threads: the groups are
  // many, but they run one at a time on each stream.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.splitShare = 1;
  GroupComms comms;
  HDRT_CUDA_CHECK(ncclCommSplit(world_, nccl, key, &comms.compute, &config));
  HDRT_CUDA_CHECK(
      ncclCommSplit(worldGradients_, nccl, key, &comms.gradients, &config));
  if (comms.compute) {
    std::lock_guard<std::mutex> lock(groupsMutex_);
    groups_[group] = comms;
  }
}

/// Two per group, and the world's two.
int64_t CudaDevice::communicators() const {
  std::lock_guard<std::mutex> lock(groupsMutex_);
  return (world_ ? 2 : 0) + 2 * int64_t(groups_.size());
}

/// The NCCL communicator of an MPI communicator for the compute or the
/// gradient stream; null when the group has one member (nothing to
/// combine).
ncclComm_t CudaDevice::ncclOf(MPI_Comm comm, bool gradients) {
  if (comm == MPI_COMM_NULL || comm == MPI_COMM_SELF || !world_)
    return nullptr;
  if (comm == MPI_COMM_WORLD)
    return gradients ? worldGradients_ : world_;
  std::lock_guard<std::mutex> lock(groupsMutex_);
  auto it = groups_.find(comm);
  if (it == groups_.end())
    throw DeviceError("a group without an NCCL communicator");
  ncclComm_t c = gradients ? it->second.gradients : it->second.compute;
  int size = 1;
  HDRT_CUDA_CHECK(ncclCommCount(c, &size));
  return size > 1 ? c : nullptr;
}

std::string CudaDevice::ncclProblem() {
  std::vector<ncclComm_t> comms = {world_, worldGradients_};
  {
    std::lock_guard<std::mutex> lock(groupsMutex_);
    for (auto &[mpiComm, group] : groups_)
      comms.insert(comms.end(), {group.compute, group.gradients});
  }
  for (ncclComm_t c : comms) {
    ncclResult_t error = ncclSuccess;
    if (!c || ncclCommGetAsyncError(c, &error) != ncclSuccess ||
        error == ncclSuccess || error == ncclInProgress)
      continue;
    std::string problem = std::string("NCCL: ") + ncclGetErrorString(error);
    if (const char *detail = ncclGetLastError(c); detail && *detail)
      problem += std::string(" (") + detail + ")";
    return problem;
  }
  return {};
}

/// The watchdog's end of the job: the communicators are aborted first, so
/// that no kernel keeps waiting on a peer, then the MPI job (from the
/// watchdog's thread: Open MPI's abort needs no particular thread).
void CudaDevice::abortJob(const std::string &problem) {
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  std::fprintf(stderr, "hd: error on rank %d (%s, GPU %d): %s\n", rank_, host,
               gpu_, problem.c_str());
  std::fflush(stderr);
  {
    std::lock_guard<std::mutex> lock(groupsMutex_);
    for (auto &[mpiComm, group] : groups_)
      for (ncclComm_t c : {group.compute, group.gradients})
        ncclCommAbort(c);
  }
  for (ncclComm_t c : {world_, worldGradients_})
    if (c)
      ncclCommAbort(c);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

int CudaDevice::allReduce(MPI_Comm comm, void *data, int64_t count,
                          ElementType type, ReduceOp op) {
  if (ncclComm_t c = ncclOf(comm, /*gradients=*/false))
    HDRT_CUDA_CHECK(ncclAllReduce(data, data, size_t(count), ncclTypeOf(type),
                                  op == ReduceOp::Sum ? ncclSum : ncclMax, c,
                                  compute_));
  return 0;
}

int CudaDevice::allReduceGradients(MPI_Comm comm, float *data, int64_t count) {
  if (ncclComm_t c = ncclOf(comm, /*gradients=*/true))
    sumBuckets(buckets_.add(c, data, count));
  return 0;
}

/// Sums closed buckets on the gradient stream, as one NCCL group: each
/// bucket's contiguous runs in place.
void CudaDevice::sumBuckets(const std::vector<Buckets::Bucket> &closed) {
  if (closed.empty())
    return;
  // The gradients are complete when the compute stream reaches here.
  HDRT_CUDA_CHECK(cudaEventRecord(ready_, compute_));
  HDRT_CUDA_CHECK(cudaStreamWaitEvent(comm_, ready_, 0));
  HDRT_CUDA_CHECK(ncclGroupStart());
  for (const Buckets::Bucket &b : closed)
    for (auto [data, count] : contiguousRuns(b.segments))
      HDRT_CUDA_CHECK(ncclAllReduce(data, data, size_t(count), ncclFloat32,
                                    ncclSum, b.group, comm_));
  HDRT_CUDA_CHECK(ncclGroupEnd());
  gradientsPending_ = true;
}

int CudaDevice::waitGradients(const float *) {
  // Updates begin once every gradient has started: what is still open goes
  // now, on every rank at the same point of the program.
  sumBuckets(buckets_.flush());
  waitForGradients();
  return 0;
}

void CudaDevice::waitForGradients() {
  if (!gradientsPending_)
    return;
  HDRT_CUDA_CHECK(cudaEventRecord(synced_, comm_));
  HDRT_CUDA_CHECK(cudaStreamWaitEvent(compute_, synced_, 0));
  gradientsPending_ = false;
}

int CudaDevice::exchangeForward(MPI_Comm comm,
                                const std::vector<mpi::Move> &plan,
                                mpi::Side side, const float *tile, float *in) {
  requireWorld(comm);
  if (side.tileBox && side.inBox)
    copyRegion(tile, *side.tileBox, in, *side.inBox,
               intersect(*side.tileBox, *side.inBox));
  exchange(plan, /*forward=*/true, side, tile, in);
  return 0;
}

int CudaDevice::exchangeBackward(MPI_Comm comm,
                                 const std::vector<mpi::Move> &plan,
                                 mpi::Side side, float *dTile,
                                 const float *dIn) {
  requireWorld(comm);
  if (side.tileBox && side.inBox)
    addRegion(dIn, *side.inBox, dTile, *side.tileBox,
              intersect(*side.tileBox, *side.inBox));
  exchange(plan, /*forward=*/false, side, dIn, dTile);
  return 0;
}

/// One direction of a transfer plan: boxes packed from `from` are sent,
/// received boxes are copied (forward) or added (backward) into `to`.
/// Forward sends from the producer tile to the consumer's input box;
/// backward the other way.
void CudaDevice::exchange(const std::vector<mpi::Move> &plan, bool forward,
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
  float *staging = static_cast<float *>(
      exchangeScratch_.get(total * sizeof(float), compute_));
  size_t offset = 0;
  for (const mpi::Move &m : plan) // pack what this rank sends
    if ((forward ? m.src : m.dst) == rank_) {
      cuda::copyRegion(compute_, from, *fromBox, staging + offset, m.box, m.box,
                       false);
      offset += size_t(m.box.volume());
    }
  HDRT_CUDA_CHECK(cudaGetLastError());
  HDRT_CUDA_CHECK(ncclGroupStart());
  offset = 0;
  for (const mpi::Move &m : plan)
    if ((forward ? m.src : m.dst) == rank_) {
      HDRT_CUDA_CHECK(ncclSend(staging + offset, size_t(m.box.volume()),
                               ncclFloat32, forward ? m.dst : m.src, world_,
                               compute_));
      offset += size_t(m.box.volume());
    }
  size_t received = offset;
  for (const mpi::Move &m : plan)
    if ((forward ? m.dst : m.src) == rank_) {
      HDRT_CUDA_CHECK(ncclRecv(staging + offset, size_t(m.box.volume()),
                               ncclFloat32, forward ? m.src : m.dst, world_,
                               compute_));
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

} // namespace hdrt::cuda
