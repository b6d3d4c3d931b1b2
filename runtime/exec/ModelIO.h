//===- ModelIO.h - a model's parameters in and out of files -----*- C++ -*-===//
//
// Weights in from an ONNX model's initializers or an hd checkpoint
// (--init), checkpoints of every shard in the global layout (--checkpoint,
// --resume), and the source ONNX model written back with the trained
// weights (--export-onnx). Rank 0 reads and writes the files; the shards
// move with hdrt/mpi/GlobalTensors.h.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_EXEC_MODELIO_H
#define HDRT_EXEC_MODELIO_H

#include "Network.h"
#include "Options.h"

#include "hdrt/mpi/Checkpoint.h"

#include <map>
#include <string>
#include <vector>

namespace hdrt::exec {

class ModelIO {
public:
  ModelIO(Network &network, const Options &options, int rank)
      : network_(network), options_(options), rank_(rank) {}

  /// --init, when given. Collective.
  void initWeights();
  /// Before training: an export needs the source model and every
  /// parameter's place in it. Collective.
  void checkExport() const;
  /// --export-onnx, when given. Collective.
  void exportOnnx();
  /// Writes the checkpoint of `step`. Collective.
  void checkpoint(int64_t step);
  /// --resume: the parameters and momentum of the checkpoint; returns its
  /// step. Collective.
  int64_t resume();
  /// The step of the last checkpoint written or resumed from; -1: none.
  int64_t lastCheckpoint() const { return lastCheckpoint_; }

private:
  /// The parameters as shards of global tensors: host copies of each
  /// shard's values and, with `momentum`, its momentum (downloaded when
  /// `download`).
  std::vector<mpi::Shard> stageShards(std::vector<std::vector<float>> &host,
                                      bool download, bool momentum);
  std::string weightsFromCheckpoint(const std::vector<mpi::Shard> &shards,
                                    std::vector<std::vector<float>> &tensors);
  std::string weightsFromOnnx(std::vector<std::vector<float>> &tensors);
  std::map<std::string, std::vector<int64_t>>
  sourceDims(std::string &error) const;

  Network &network_;
  const Options &options_;
  int rank_;
  int64_t lastCheckpoint_ = -1;
};

} // namespace hdrt::exec

#endif // HDRT_EXEC_MODELIO_H
