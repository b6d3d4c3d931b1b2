//===- Checkpoints.cpp - parameters and momentum in the global layout -----===//
//
// Checkpoints hold every parameter shard's values and momentum, gathered
// into the global layout with the model's hash (hdrt/mpi/Checkpoint.h), so
// a run resumes under any strategy and device count. finish() writes the
// last one with the metrics and the trace.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include <cstdio>

namespace hdrt::exec {

/// Host copies of every shard, in `host` (with momentum, two vectors per
/// trained parameter), which `shards` point into.
std::vector<mpi::Shard>
Program::stageShards(std::vector<std::vector<float>> &host, bool download,
                     bool momentum) {
  std::vector<mpi::Shard> shards;
  for (Layer &l : layers_)
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

void Program::checkpoint(int64_t step) {
  std::vector<std::vector<float>> host;
  std::vector<mpi::Shard> shards =
      stageShards(host, /*download=*/true, /*momentum=*/true);
  std::string error;
  if (!mpi::writeCheckpoint(MPI_COMM_WORLD, options_.checkpoint, modelHash_,
                            step, shards, error))
    throw CollectiveError("cannot write the checkpoint: " + error);
  lastCheckpoint_ = step;
}

void Program::resume() {
  std::vector<std::vector<float>> host;
  std::vector<mpi::Shard> shards =
      stageShards(host, /*download=*/false, /*momentum=*/true);
  std::string error;
  int64_t step = 0;
  if (!mpi::readCheckpoint(MPI_COMM_WORLD, options_.checkpoint, modelHash_,
                           step, shards, error))
    throw CollectiveError("cannot resume: " + error);
  size_t next = 0;
  for (Layer &l : layers_)
    for (Param &p : l.params) {
      p.value.upload(host[next++].data());
      if (p.trained)
        p.velocity.upload(host[next++].data());
    }
  firstStep_ = lastCheckpoint_ = step;
  if (rank_ == 0 && !options_.quiet)
    std::printf("resumed from %s/checkpoint.hd at step %lld\n",
                options_.checkpoint.c_str(), static_cast<long long>(step));
}

int Program::finish() {
  int64_t done = firstStep_ + static_cast<int64_t>(losses_.size());
  if (eval_ && (evaluations_.empty() || evaluations_.back().step != done))
    evaluate(done);
  if (!options_.checkpoint.empty() && !losses_.empty())
    checkpoint(done);
  exportOnnx();
  writeMetrics();
  writeTrace();
  return 0;
}

} // namespace hdrt::exec
