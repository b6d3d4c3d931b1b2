//===- CostModel.h - time of a layer, a transfer, a sync --------*- C++ -*-===//
//
// The paper's three terms, independent of MLIR:
//   t_c  forward + backward time of the layer's largest tile: a roofline
//        estimate per pass (FLOPs at peak * efficiency against bytes at
//        memory bandwidth, plus a launch), unless the profile database has a
//        measurement;
//   t_x  time to move, forward and backward, the parts of each consumer
//        tile's input box that other devices hold, from the exact boxes;
//        bytes are charged to the links they cross (pair links and device
//        ports inside a node, network interfaces between nodes) and the
//        most-loaded one sets the time;
//   t_s  ring all-reduce of each replica group's gradient shard over the
//        slowest link of the group.
// Tasks of a layer run on devices 0..k-1 in row-major tile order.
//
// One file per term: t_c in LayerCost.cpp, t_s and the statistics syncs in
// SyncCost.cpp, t_x in TransferCost.cpp over Transfer.h's loads, the
// search's transfer bounds in TransferBounds.cpp, a task's memory in
// LayerMemory.cpp, and a whole strategy's cost in StrategyCost.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef HD_COSTMODEL_COSTMODEL_H
#define HD_COSTMODEL_COSTMODEL_H

#include "hd/CostModel/LayerGraph.h"
#include "hd/CostModel/Machine.h"
#include "hd/CostModel/ProfileDB.h"
#include "hd/CostModel/Transfer.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace hd {

struct LayerCost {
  double computeMs = 0; // t_c, including batch-norm/softmax statistic syncs
  /// The parts of computeMs in the backward pass and in the optimizer's
  /// update (the rest is forward): where gradient sums can hide.
  double backwardMs = 0, updateMs = 0;
  double syncMs = 0;    // t_s
  double syncBytes = 0; // bytes the gradient all-reduce moves, all links
  bool measured = false; // t_c came from the profile database
};

struct TransferCost {
  double ms = 0;    // forward + backward
  double bytes = 0; // forward + backward, remote only
};

/// Every const member is safe to call from several threads at once.
class CostModel {
public:
  explicit CostModel(Machine machine, ProfileDB profile = {})
      : machine(std::move(machine)), profile(std::move(profile)) {}

  const Machine &getMachine() const { return machine; }

  LayerCost layerCost(const Layer &layer, const ParallelConfig &config) const;
  /// The runtime adding this layer's input gradients into those of
  /// producers that other layers read too (part of t_c), for `tile`.
  double gradientAccumulationMs(const Layer &layer, const TileBox &tile) const;

  /// t_x of the edge from `producer` into operand `operand` of `consumer`.
  TransferCost transferCost(const Layer &producer,
                            const ParallelConfig &producerConfig,
                            const Layer &consumer, unsigned operand,
                            const ParallelConfig &consumerConfig) const;
  /// The same, from the producer's grid and the consumer tasks' input boxes,
  /// which tables compute once per row and per column.
  TransferCost transferCost(const ProducerGrid &producer,
                            const ConsumerTiles &tiles) const;
  /// The runtime's copies for a transfer into consumer boxes of at most
  /// `boxElements` of `elementBytes` each, where a device sends at most
  /// `sentBytes` (forward and backward, ms): part of transferCost wherever
  /// a consumer box is not its device's own tile.
  double transferCopyMs(int64_t boxElements, double sentBytes,
                        double elementBytes) const;
  /// The bytes those copies read and write, forward and backward.
  static double transferCopyBytes(int64_t boxElements, double sentBytes,
                                  double elementBytes);
  /// A lower bound on the transfer time (ms) when only devices
  /// [0, holders) take part on one side, and every device t >= holders must
  /// receive from them (or send to them) at least bytes[t]: what its port,
  /// or its node's network interface, needs at least, plus one message,
  /// and, where anything moves, the copies of a consumer box of at least
  /// `leastLargestBox` elements (the smallest largest box of the consumer
  /// configurations covered) of `elementBytes` each. Backward mirrors
  /// forward, as in transferCost.
  double transferLowerBoundMs(const std::vector<double> &bytes, int64_t holders,
                              int64_t leastLargestBox,
                              double elementBytes) const;
  /// A lower bound on transferCost from sizes alone, where the tilings of
  /// the two sides do not line up: a consumer task keeps at most, per dim,
  /// the smaller of its box and a producer part; its node's tasks hold at
  /// most the smaller of its box and what one node holds; the rest crosses
  /// its port or its node's network interface, in messages from at least
  /// as many tasks as parts its box spans. O(rank).
  double misalignmentBoundMs(const ProducerExtents &producer,
                             const ConsumerExtents &consumer) const;

  /// The runtime sums gradients smaller than this in shared buckets
  /// (hdrt/mpi/GradientSync.h, kBucketBytes).
  static constexpr double kGradientBucketBytes = 4 << 20;
  /// The measured all-reduce bandwidth at `bytes` (Machine::allReduceCurve).
  double curveGbps(double bytes) const;
  /// Ring all-reduce of `bytes` over `devices`, with `sharing` rings
  /// crossing each network interface at once; where the machine has a
  /// measured curve, its rate at that size (a gradient under the bucket
  /// size: the bucket's).
  double allReduceMs(double bytes, const std::vector<int64_t> &devices,
                     int64_t sharing) const;

  /// Bytes one device holds for this layer's task `task`, as the runtime
  /// allocates them: parameters, gradients and momentum of its shard, its
  /// output tile and that tile's gradient, the workspace its forward keeps
  /// for backward (Layer::workspaceBytesPerElement), and `inputBytes`, the
  /// copies of its input boxes (and their gradients) it keeps.
  int64_t taskMemoryBytes(const Layer &layer, const ParallelConfig &config,
                          int64_t task, int64_t inputBytes) const;

  /// The bound the search keeps each device's peak under is the sum, over
  /// layers and edges, of these two terms (the evaluation's per-device sums
  /// are never above it). The bytes of the layer's largest task without
  /// the copies of other layers' outputs (those are the edges'): its
  /// parameters, their gradients and momentum, its output tile and that
  /// tile's gradient, and its box of the images.
  int64_t layerMemoryBytes(const Layer &layer,
                           const ParallelConfig &config) const;
  /// The most bytes a task of the consumer keeps of the producer's tensor
  /// (`onlyReader`: the consumer is the producer's only reader).
  static int64_t inputCopyBytes(const ProducerGrid &producer,
                                const ConsumerTiles &tiles, bool onlyReader);
  /// How many copies of its box of an operand a consumer task keeps, as the
  /// runtime's executor does (exec/Prepare.cpp): the images' box once
  /// (`producer` null); an activation's box and its gradient, except where
  /// the edge needs no transfer (every task reads its own device's tile in
  /// place): then none for the only reader, and the gradient alone for one
  /// of several.
  static int inputCopies(const ProducerGrid *producer,
                         const ConsumerTiles &tiles, bool onlyReader);

private:
  /// The rate of the runtime's own copies and adds around the kernels:
  /// the machine's copyGbps where calibrated, else its memory bandwidth.
  double runtimeCopyGbps() const;
  /// A dense kernel computes at the machine's rate in `compute`.
  double rooflineMs(double flops, double bytes, bool dense,
                    Precision compute) const;
  /// How much faster a layer's tiles run than measured when fewer of a
  /// node's processes share its cores (1 when devices do not share).
  double coreSharing(const ParallelConfig &config) const;
  /// What the tasks that share the layer's statistics spend combining them,
  /// for the largest tile (part of t_c).
  double statisticsSyncMs(const Layer &layer,
                          const ParallelConfig &config) const;
  /// t_s: every replica group's all-reduce of its gradient shard; adds the
  /// bytes it moves, over all links, to `bytes`.
  double gradientSyncMs(const Layer &layer, const ParallelConfig &config,
                        double &bytes) const;

  /// The roofline's time of the largest tile's passes: forward + backward
  /// + update, and the parts of it in backward and in the update.
  struct PassTimes {
    double total = 0, backward = 0, update = 0;
  };
  PassTimes analyticPasses(const Layer &layer,
                           const ParallelConfig &config) const;

  Machine machine;
  ProfileDB profile;
};

/// Per-layer and total cost of a whole strategy.
struct LayerReport {
  LayerCost cost;
  double inTransferMs = 0;
  double inTransferBytes = 0;
  int64_t memBytes = 0; // the largest of the layer's tasks
};

struct StrategyCost {
  double computeMs = 0, transferMs = 0, syncMs = 0;
  /// The part of syncMs the step waits for: all of it, unless the machine
  /// overlaps gradient sums with the backward pass (Machine::syncOverlap).
  double exposedSyncMs = 0;
  double commBytes = 0;
  int64_t peakMemBytes = 0; // the device that needs the most
  std::vector<LayerReport> layers;

  /// The predicted step.
  double totalMs() const { return computeMs + transferMs + exposedSyncMs; }
  /// The paper's sum of the three terms, which the search minimizes.
  double serializedMs() const { return computeMs + transferMs + syncMs; }
};

StrategyCost evaluateStrategy(const CostModel &model, const LayerGraph &graph,
                              const std::vector<ParallelConfig> &strategy);

/// The sync a step waits for when gradient sums run beside the backward
/// pass, one after another in the order their layers finish backward
/// (reverse program order), and each layer's update waits for its own sum:
/// the step's end less that of the same schedule with instant sums. Per
/// layer, in program order: its cost, and the transfer time into it (half
/// forward, half backward, on the compute timeline).
double exposedSyncMs(const std::vector<LayerCost> &layers,
                     const std::vector<double> &inTransferMs);

} // namespace hd

#endif // HD_COSTMODEL_COSTMODEL_H
