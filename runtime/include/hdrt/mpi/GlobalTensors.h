//===- GlobalTensors.h - tensors split over ranks, whole on rank 0 -*- C++ -*-===//
//
// Parameters live in shards on the ranks that hold their output channels;
// checkpoints, --init and --export-onnx want them whole. Rank 0 gathers a
// tensor from the one replica of each part that writes it, and scatters a
// whole tensor back into every rank's shard.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_MPI_GLOBALTENSORS_H
#define HDRT_MPI_GLOBALTENSORS_H

#include "hdrt/Box.h"

#include <mpi.h>

#include <string>
#include <vector>

namespace hdrt::mpi {

/// This rank's shard of one global tensor. Every rank lists the same
/// tensors in the same order.
struct Shard {
  std::string name;
  std::vector<int64_t> shape; // global
  Box box;                    // the part this rank holds (rank 0: none)
  float *data = nullptr;      // a dense buffer of `box`
  /// Whether this rank writes its shard: one replica of each part does.
  bool writes = false;
};

/// The number of elements of a tensor of `shape`.
int64_t volumeOf(const std::vector<int64_t> &shape);

/// Rank 0's verdict, `ok` and `error`, which every rank then shares.
bool agree(MPI_Comm comm, bool ok, std::string &error);

/// Collective. Rank 0 gets every tensor whole, in shard order; false (on
/// every rank, with the same message) when the written shards do not cover
/// a tensor exactly once.
bool gatherTensors(MPI_Comm comm, const std::vector<Shard> &shards,
                   std::vector<std::vector<float>> &tensors,
                   std::string &error);

/// Collective. Copies rank 0's whole `tensors` (one per shard, in order;
/// ignored on other ranks) into every rank's shard.
void scatterTensors(MPI_Comm comm, const std::vector<std::vector<float>> &tensors,
                    const std::vector<Shard> &shards);

} // namespace hdrt::mpi

#endif // HDRT_MPI_GLOBALTENSORS_H
