//===- Network.h - the program's layers and edges on one rank ---*- C++ -*-===//
//
// The network as the generated code defines it (Network.cpp): layers with
// their kind, descriptor and configuration, the edges between them with
// their transfer plans, and the replica groups of gradient syncs. Each
// rank keeps only its own part of it, set up by RankState: the output tile
// of each layer it has a task in, the input box each of those tasks reads,
// and its shard of the parameters.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_EXEC_NETWORK_H
#define HDRT_EXEC_NETWORK_H

#include "hdrt/Box.h"
#include "hdrt/Device.h"
#include "hdrt/LayerDesc.h"
#include "hdrt/common/Partition.h"
#include "hdrt/mpi/Exchange.h"

#include <mpi.h>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace hdrt::exec {

/// One parameter tensor's shard on this rank, with its gradient and the
/// optimizer's velocity, in device memory.
struct Param {
  std::string name;           // "<layer>.weight", ...
  std::string suffix;         // "weight", ...
  std::vector<int64_t> shape; // global
  Box box;                    // this rank's shard (rank 0 when none)
  Buffer<float> value, grad, velocity;
  /// Its initial values: offset + bound * u, u uniform in [-1, 1) drawn
  /// from `stream` by the global index of each element (first: the
  /// shard's first).
  struct Init {
    float offset = 0, bound = 0;
    uint64_t stream = 0;
    int64_t first = 0;
  } init;
  bool writes = false; // this rank checkpoints its shard
  /// Trained by SGD; false for statistics a layer keeps (batch norm's
  /// running mean and variance), which have no gradient or momentum.
  bool trained = true;
};

struct Edge;
class LayerImpl;

/// What the loss layer's tile finds in an inference forward: the samples
/// whose label is one of its classes (each sample is counted by exactly one
/// tile), and how many of them rank their label first, or in the first five.
struct Accuracy {
  int64_t samples = 0, top1 = 0, top5 = 0;
};

/// What a layer kind keeps on this rank beyond its tiles and parameters:
/// window geometry, statistics buffers. Each kind defines its own
/// (exec/layers/).
struct LayerState {
  virtual ~LayerState() = default;
};

struct Layer {
  int64_t id = -1;
  const LayerImpl *impl = nullptr; // the kind's code
  std::string name;
  Partition out;
  LayerDescriptor descriptor;
  std::vector<Edge *> inputs; // by operand
  int consumers = 0;          // edges reading this layer's output
  /// The explicit transfers out of this layer whose messages are posted
  /// early (Transfers::prepare).
  std::vector<Edge *> postedTransfers;
  /// Whether the step starts by zeroing `grad`: not where its only reader
  /// writes all of it in place (LayerImpl::writesWholeInputGradients), nor
  /// where several readers accumulate it (`lazyGrad`).
  bool zeroGrad = true;
  /// Several readers on this rank: the first to reach `grad` in a step's
  /// backward writes it (in place, if it reads the tile in place and writes
  /// its input gradient whole; else onto zeros), the others add into it.
  /// `gradWritten` says whether this step's backward has reached it yet.
  bool lazyGrad = false, gradWritten = false;

  // This rank's task, if any, and its tensors in device memory.
  int64_t task = -1;
  Box tile;
  Buffer<float> value, grad;
  /// The layout of `value` and `grad`: 1 for NCHW, else the channel block
  /// of the device's nChw<B>c (RankState::chooseLayouts).
  int64_t block = 1;
  /// A ReLU that is this layer's only reader and whose output this layer's
  /// forward writes instead of its own (RankState::fuseRelus); and, on that
  /// ReLU, that its forward is done.
  Layer *reluInto = nullptr;
  bool computedByProducer = false;
  std::vector<Param> params;
  MPI_Comm gradComm = MPI_COMM_NULL;  // replica group of the parameters
  MPI_Comm statsComm = MPI_COMM_NULL; // tasks that combine statistics
                                      // (the kind's LayerKinds.def entry)
  std::unique_ptr<LayerState> state;
  /// The loss layer: this tile's summed loss, on the device until the
  /// step ends (partialLossOf).
  Buffer<double> partialLoss;
  Accuracy accuracy;      // the loss layer, in inference
  /// Where its parameters come from in the source model, by parameter
  /// suffix ("weight"): the tensor's name, and whether it holds the
  /// transpose of hd's layout.
  std::map<std::string, std::pair<std::string, bool>> sources;

  template <typename Desc> Desc desc() const { return descriptor.as<Desc>(); }
  template <typename State> State &stateAs() const {
    return static_cast<State &>(*state);
  }
};

/// An operand of a layer: what it reads from a producer (a layer, or the
/// images or labels) and how it gets there.
struct Edge {
  int64_t id = -1;
  std::string name; // "producer -> consumer"
  Layer *consumer = nullptr;
  int operand = 0;
  int64_t producer = -1; // a layer id, HDRT_IMAGES or HDRT_LABELS
  Partition source;      // the producer's tensor shape (degrees unused)
  std::vector<mpi::Move> plan;
  bool explicitTransfer = false;
  bool wantsGradient = false; // profiling: an operand standing in for a
                              // layer's output, with its gradient

  // The consumer task's input box on this rank, and its buffers. `in`
  // points into the producer's tile when the box is exactly that tile, and
  // `dIn` into its gradient when this edge is also its only reader. Labels
  // are read on the host, checked, then copied to the device.
  bool hasBox = false;
  Box box;
  bool inAliased = false, gradAliased = false;
  /// A reader of a `lazyGrad` producer that may write the producer's
  /// gradient in place when it is the first to reach it; and whether it
  /// does in this step's backward (`dIn` then points at that gradient).
  bool mayWriteGradInPlace = false, writesGradInPlace = false;
  Buffer<float> inStorage, dInStorage;
  std::vector<int32_t> labels;
  Buffer<int32_t> deviceLabels;
  float *in = nullptr, *dIn = nullptr;
  /// The layout of `in` and `dIn`, as Layer::block: the producer's where
  /// they alias its tile, else NCHW.
  int64_t block = 1;
  /// An explicit transfer's messages on this rank, where they are posted
  /// early (exec/Transfers.cpp); null where the transfer runs whole at its
  /// call.
  std::unique_ptr<mpi::Messages> messages;
};

/// The producer's tile and the edge's box, as the buffers lay them out.
std::pair<Box, Box> localBoxes(const Layer &p, const Edge &e);

/// This rank's communicator in a division of the world into groups:
/// `colorOfTask` gives each task's group (negative: in none; ranks past its
/// end are in none). MPI_COMM_NULL where this rank is in no group,
/// MPI_COMM_SELF where it is alone in one. Collective over every rank, in
/// the same order on each.
using SplitWorld =
    std::function<MPI_Comm(const std::vector<int64_t> &colorOfTask)>;

class Network {
public:
  /// `devices`: the compiled device count, which every configuration and
  /// transfer plan must stay within.
  Network(int64_t devices, std::string modelName, std::string modelHash);

  // Definitions, in the order of Abi.def.
  void defineLayer(int64_t id, LayerKind kind, std::string name, int rank,
                   const int64_t *shape, const int64_t *degrees,
                   int64_t operands, const void *descriptor,
                   int64_t descriptorBytes);
  void defineEdge(int64_t id, int64_t consumer, int64_t operand,
                  int64_t producer, int rank, const int64_t *shape,
                  const int64_t *moves, int64_t moveCount);
  /// The layer's replica groups; `split` makes this rank's communicator,
  /// or null (profiling: a layer alone) to mark the layer synced.
  void defineGradSync(int64_t layer, const int64_t *groups, int64_t length,
                      const SplitWorld &split);
  void defineTensors(int64_t layer, const std::string &text);
  void defineSource(const char *bytes, int64_t size);

  Layer &layer(int64_t id);
  Edge &edge(int64_t id);
  std::deque<Layer> &layers() { return layers_; }
  const std::deque<Layer> &layers() const { return layers_; }
  std::deque<Edge> &edges() { return edges_; }
  const std::deque<Edge> &edges() const { return edges_; }

  int64_t devices() const { return devices_; }
  const std::string &modelName() const { return modelName_; }
  const std::string &modelHash() const { return modelHash_; }
  /// The source ONNX model, when the program was compiled from one.
  const std::string &source() const { return source_; }

private:
  int64_t devices_;
  std::string modelName_, modelHash_, source_;
  // Deques: layers and edges point at each other.
  std::deque<Layer> layers_;
  std::deque<Edge> edges_;
};

} // namespace hdrt::exec

#endif // HDRT_EXEC_NETWORK_H
