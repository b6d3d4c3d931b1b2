//===- GlobalTensors.cpp - tensors split over ranks, whole on rank 0 ------===//

#include "hdrt/mpi/GlobalTensors.h"

#include <algorithm>
#include <climits>

namespace hdrt::mpi {

namespace {

Box wholeBox(const std::vector<int64_t> &shape) {
  Box b;
  b.rank = static_cast<int>(shape.size());
  for (int d = 0; d < b.rank; ++d)
    b.hi[d] = shape[d];
  return b;
}

/// Broadcasts in int-sized chunks.
void bcastFloats(MPI_Comm comm, float *data, int64_t count) {
  for (int64_t done = 0; done < count;) {
    int chunk = static_cast<int>(std::min<int64_t>(count - done, INT_MAX));
    MPI_Bcast(data + done, chunk, MPI_FLOAT, 0, comm);
    done += chunk;
  }
}

/// Rank 0 collects every tensor from the ranks that write its shards.
std::vector<std::vector<float>> gather(MPI_Comm comm,
                                       const std::vector<Shard> &shards,
                                       std::vector<int64_t> &covered) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  std::vector<int64_t> mine(shards.size()), counts(shards.size());
  for (size_t i = 0; i < shards.size(); ++i)
    mine[i] = shards[i].writes ? 1 : 0;
  MPI_Reduce(mine.data(), counts.data(), int(shards.size()), MPI_INT64_T,
             MPI_SUM, 0, comm);
  std::vector<std::vector<float>> tensors;
  for (size_t i = 0; i < shards.size(); ++i) {
    const Shard &s = shards[i];
    int tag = static_cast<int>(2 * (i % 16000));
    if (rank != 0) {
      if (s.writes) {
        int64_t box[8];
        std::copy(s.box.lo, s.box.lo + 4, box);
        std::copy(s.box.hi, s.box.hi + 4, box + 4);
        MPI_Send(box, 8, MPI_INT64_T, 0, tag, comm);
        MPI_Send(s.data, int(s.box.volume()), MPI_FLOAT, 0, tag + 1, comm);
      }
      continue;
    }
    Box whole = wholeBox(s.shape);
    std::vector<float> global(whole.volume(), 0.0f);
    int64_t expected = counts[i];
    covered.push_back(0);
    if (s.writes) {
      copyRegion(s.data, s.box, global.data(), whole, s.box);
      covered.back() += s.box.volume();
      --expected;
    }
    for (; expected > 0; --expected) {
      int64_t box[8];
      MPI_Status status;
      MPI_Recv(box, 8, MPI_INT64_T, MPI_ANY_SOURCE, tag, comm, &status);
      Box part;
      part.rank = whole.rank;
      std::copy(box, box + 4, part.lo);
      std::copy(box + 4, box + 8, part.hi);
      std::vector<float> data(part.volume());
      MPI_Recv(data.data(), int(data.size()), MPI_FLOAT, status.MPI_SOURCE,
               tag + 1, comm, MPI_STATUS_IGNORE);
      copyRegion(data.data(), part, global.data(), whole, part);
      covered.back() += part.volume();
    }
    tensors.push_back(std::move(global));
  }
  return tensors;
}

} // namespace

int64_t volumeOf(const std::vector<int64_t> &shape) {
  int64_t v = 1;
  for (int64_t d : shape)
    v *= d;
  return v;
}

bool agree(MPI_Comm comm, bool ok, std::string &error) {
  int flag = ok ? 1 : 0;
  MPI_Bcast(&flag, 1, MPI_INT, 0, comm);
  int64_t length = static_cast<int64_t>(error.size());
  MPI_Bcast(&length, 1, MPI_INT64_T, 0, comm);
  error.resize(length);
  if (length)
    MPI_Bcast(error.data(), int(length), MPI_CHAR, 0, comm);
  return flag == 1;
}

bool gatherTensors(MPI_Comm comm, const std::vector<Shard> &shards,
                   std::vector<std::vector<float>> &tensors,
                   std::string &error) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  std::vector<int64_t> covered;
  tensors = gather(comm, shards, covered);
  bool ok = true;
  if (rank == 0)
    for (size_t i = 0; i < shards.size() && ok; ++i)
      if (covered[i] != volumeOf(shards[i].shape)) {
        error = "the shards written for tensor '" + shards[i].name +
                "' cover " + std::to_string(covered[i]) + " of its " +
                std::to_string(volumeOf(shards[i].shape)) + " elements";
        ok = false;
      }
  return agree(comm, ok, error);
}

void scatterTensors(MPI_Comm comm,
                    const std::vector<std::vector<float>> &tensors,
                    const std::vector<Shard> &shards) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  for (size_t i = 0; i < shards.size(); ++i) {
    const Shard &s = shards[i];
    std::vector<float> global(size_t(volumeOf(s.shape)));
    if (rank == 0)
      global = tensors[i];
    bcastFloats(comm, global.data(), volumeOf(s.shape));
    if (s.box.rank > 0 && s.data)
      copyRegion(global.data(), wholeBox(s.shape), s.data, s.box, s.box);
  }
}

} // namespace hdrt::mpi
