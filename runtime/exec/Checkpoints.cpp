//===- Checkpoints.cpp - parameters and momentum in the global layout -----===//
//
// Checkpoints hold every parameter shard's values and momentum, gathered
// into the global layout with the model's hash (hdrt/mpi/Checkpoint.h), so
// a run resumes under any strategy and device count.
//
//===----------------------------------------------------------------------===//

#include "ModelIO.h"

#include "Errors.h"

#include <cstdio>

namespace hdrt::exec {

/// Host copies of every shard, in `host` (with momentum, two vectors per
/// trained parameter), which `shards` point into.
std::vector<mpi::Shard>
ModelIO::stageShards(std::vector<std::vector<float>> &host, bool download,
                     bool momentum) {
  std::vector<mpi::Shard> shards;
  for (Layer &l : network_.layers())
    for (Param &p : l.params)
      for (int velocity = 0; velocity < (momentum && p.trained ? 2 : 1);
           ++velocity) {
        const Buffer<float> &buffer = velocity ? p.velocity : p.value;
        std::vector<float> &copy = host.emplace_back(size_t(buffer.size()));
        if (download)
          buffer.download(copy.data());
        mpi::Shard &s = shards.emplace_back();
        s.name = p.name + (velocity ? ".momentum" : "");
        s.shape = p.shape;
        s.box = p.box;
        s.data = buffer.empty() ? nullptr : copy.data();
        s.writes = p.writes;
      }
  return shards;
}

void ModelIO::checkpoint(int64_t step) {
  std::vector<std::vector<float>> host;
  std::vector<mpi::Shard> shards =
      stageShards(host, /*download=*/true, /*momentum=*/true);
  std::string error;
  if (!mpi::writeCheckpoint(MPI_COMM_WORLD, options_.checkpoint,
                            network_.modelHash(), step, shards, error))
    throw CollectiveError("cannot write the checkpoint: " + error);
  lastCheckpoint_ = step;
}

int64_t ModelIO::resume() {
  std::vector<std::vector<float>> host;
  std::vector<mpi::Shard> shards =
      stageShards(host, /*download=*/false, /*momentum=*/true);
  std::string error;
  int64_t step = 0;
  if (!mpi::readCheckpoint(MPI_COMM_WORLD, options_.checkpoint,
                           network_.modelHash(), step, shards, error))
    throw CollectiveError("cannot resume: " + error);
  size_t next = 0;
  for (Layer &l : network_.layers())
    for (Param &p : l.params) {
      p.value.upload(host[next++].data());
      if (p.trained)
        p.velocity.upload(host[next++].data());
    }
  lastCheckpoint_ = step;
  if (rank_ == 0 && !options_.quiet)
    std::printf("resumed from %s/checkpoint.hd at step %lld\n",
                options_.checkpoint.c_str(), static_cast<long long>(step));
  return step;
}

} // namespace hdrt::exec
