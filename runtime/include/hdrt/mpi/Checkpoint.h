//===- Checkpoint.h - checkpoints in the global layout ----------*- C++ -*-===//
//
// Parameters and optimizer state are saved unpartitioned, so a run can
// resume under another strategy or device count. Rank 0 gathers every
// tensor from the ranks that own its shards and writes DIR/checkpoint.hd
// through a temporary file and a rename: an interrupted write leaves the
// previous checkpoint intact. The file records the model hash and a
// checksum of its data; a checkpoint of another model, a truncated or a
// corrupt one is refused with a clear error.
//
// File: "HDCKPT1\n", then text lines "model <hash>", "step <n>",
// "checksum <fnv1a64 of the data>", "tensors <count>", one line per tensor
// "<name> <rank> <dims...>", "data\n", then the tensors' float32 values,
// little-endian, in order.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_MPI_CHECKPOINT_H
#define HDRT_MPI_CHECKPOINT_H

#include "hdrt/mpi/GlobalTensors.h"

#include <mpi.h>

#include <string>
#include <vector>

namespace hdrt::mpi {

/// Collective. Returns true on success; on failure every rank gets the
/// same message and the previous checkpoint is untouched.
bool writeCheckpoint(MPI_Comm comm, const std::string &dir,
                     const std::string &modelHash, int64_t step,
                     const std::vector<Shard> &shards, std::string &error);

/// Collective. Fills every shard's buffer from DIR/checkpoint.hd.
bool readCheckpoint(MPI_Comm comm, const std::string &dir,
                    const std::string &modelHash, int64_t &step,
                    std::vector<Shard> &shards, std::string &error);

/// A checkpoint file's contents, read on one rank: its model, its step,
/// and each tensor's name, shape and values.
struct CheckpointFile {
  std::string modelHash;
  int64_t step = 0;
  std::vector<std::string> names;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::vector<float>> tensors;
};

/// Reads and checks `path` (its magic, header, size and checksum); false
/// with a reason naming the file.
bool loadCheckpointFile(const std::string &path, CheckpointFile &file,
                        std::string &error);

} // namespace hdrt::mpi

#endif // HDRT_MPI_CHECKPOINT_H
