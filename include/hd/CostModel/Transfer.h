//===- Transfer.h - who sends what to whom between two layers --*- C++ -*-===//
//
// The data a consumer layer's tasks need from a producer layer's tasks, from
// the exact boxes, summarized as the load on every resource a transfer uses:
// each intra-node device pair's link, each device's intra-node ports, and
// each node's network interface (both directions), plus message counts.
//
// Two exact ways to get there:
//   - enumeration: every (producer task, consumer task) pair that overlaps;
//   - separable: when each dimension of a consumer task's input box depends
//     on at most one coordinate of the task in the consumer's grid (true of
//     every hd layer), a device's volumes are products of per-dimension
//     intersections, and a node's tasks form a few sub-boxes of each grid,
//     so a consumer task's same-node traffic is a product of intersections
//     with the element intervals those sub-boxes cover: O(rank) a device.
//     A producer task's same-node sends take its node's consumer tasks
//     (O(rank * devices per node)), and only the peaks need them where they
//     could set the busiest port. Tables use this one; tests check it
//     against enumeration.
//
//===----------------------------------------------------------------------===//

#ifndef HD_COSTMODEL_TRANSFER_H
#define HD_COSTMODEL_TRANSFER_H

#include "hd/CostModel/LayerGraph.h"
#include "hd/CostModel/Machine.h"

#include <vector>

namespace hd {

/// Every tensor the cost model sees is f32.
inline constexpr double kBytesPerElement = 4;

/// One remote movement of elements between two devices.
struct Flow {
  int64_t src, dst;
  int64_t elements;
};

/// Boxes of each node's tasks, for nodes of `nodeSize` devices (0: not
/// computed), laid out per device for the vector passes: box k of device
/// t's node, dim d, at [(k * rank + d) * devices + t], for the `devices`
/// of the nodes that hold tasks; an empty box where a node has fewer than
/// `slots`.
struct NodeBoxes {
  int64_t nodeSize = 0, slots = 0, devices = 0;
  std::vector<double> lo, hi;
};

/// The input boxes that every task of a consumer reads from one operand.
struct ConsumerTiles {
  std::vector<int64_t> degrees;  // the consumer's configuration
  std::vector<TileBox> boxes;    // per consumer task
  int64_t largestBox = 0;        // the most elements of one task's box
  int64_t totalBoxes = 0;        // the elements of every task's box
  /// Separable form: for each dim of the operand, the consumer grid
  /// coordinate its range depends on (-1: the same for every task) and the
  /// range for each value of that coordinate.
  bool separable = false;
  std::vector<int> coordOf;
  std::vector<std::vector<Range>> ranges;
  /// Separable form, per operand dim d and task q, at [d * tasks + q]: its
  /// box's interval in boxLo and boxHi; per task, its box's volume. Doubles
  /// (exact below 2^53) for the vector kernels.
  std::vector<double> volumes;
  std::vector<double> boxLo, boxHi;
  /// Separable form without halos (each dim's ranges side by side, as a
  /// block partition's): the boxes of each node's consumer tasks, as
  /// sub-boxes of the grid, merged into one box each, and how many times
  /// each is read (the coordinates no dim follows) at
  /// [k * nodeBoxes.devices + t].
  NodeBoxes nodeBoxes;
  std::vector<double> nodeBoxReads;
};

/// With `devicesPerNode`, the node boxes are computed here, where the boxes
/// have no halos.
ConsumerTiles consumerTiles(const Layer &consumer, unsigned operand,
                            const ParallelConfig &config,
                            int64_t devicesPerNode = 0);

/// A producer's tiles: its block parts per dim and its tasks' coordinates.
/// Depends on the producer alone, so tables compute it once per row.
struct ProducerGrid {
  std::vector<int64_t> shape;
  ParallelConfig config;
  std::vector<Range> parts;         // parts of dim d start at partOffset[d]
  std::vector<int64_t> partOffset;  // rank + 1 entries
  /// Per dim d and task p, at [d * tasks + p]: its grid coordinate in
  /// `coords`, its tile's interval in tileLo and tileHi (as in
  /// ConsumerTiles).
  std::vector<int64_t> coords;
  std::vector<double> tileLo, tileHi;
  /// The element boxes each node's tasks hold together.
  NodeBoxes nodeBoxes;
};

/// With `devicesPerNode`, the node boxes are computed once here rather
/// than in every transfer of the grid.
ProducerGrid producerGrid(const std::vector<int64_t> &shape,
                          const ParallelConfig &config,
                          int64_t devicesPerNode = 0);

/// How many identical slabs a transfer falls into, of which the first (a
/// prefix of the devices) stands for all in the peaks. The outermost dim
/// that either grid splits (the batch, or the channels where neither
/// splits the batch) comes first in both grids' row-major order, so where
/// both split it into equal parts over as many tasks and each consumer
/// task reads its own part of it (every layer but a flattening one; for
/// channels, an elementwise one), the devices fall into slabs of
/// consecutive tasks that move data only among themselves: as many as the
/// two degrees' greatest common divisor, less where a slab would straddle
/// a node boundary. 1 where there is no such structure.
int64_t identicalSlabs(const ProducerGrid &producer, const ConsumerTiles &tiles,
                       int64_t devicesPerNode);

/// What the position-free transfer bound (CostModel::misalignmentBoundMs)
/// needs of a producer's configuration: its task count, its largest part
/// per dim, and per dim the largest extent of what one node's tasks hold
/// together (the whole dim where a node's tiles do not form one box).
struct ProducerExtents {
  int64_t tasks = 0;
  std::vector<int64_t> part, node;
};
ProducerExtents producerExtents(const ProducerGrid &grid,
                                int64_t devicesPerNode);

/// And of a consumer's configuration: its task count, the extents of the
/// box of the task that reads most, and per dim the least any task reads.
struct ConsumerExtents {
  int64_t tasks = 0;
  std::vector<int64_t> largest, least;
};
ConsumerExtents consumerExtents(const std::vector<TileBox> &boxes);

/// Loads of one transfer phase (forward); backward is its mirror image.
struct TransferLoads {
  /// The busiest intra-node device pair; the separable form leaves it 0
  /// when the pair links are as fast as a device's port (it then never
  /// sets the time).
  double maxPairBytes = 0;
  std::vector<double> devOut, devIn;   // intra-node bytes per device
  std::vector<double> nicOut, nicIn;   // inter-node bytes per node
  std::vector<int64_t> msgsOut, msgsIn;
  int64_t elements = 0;                // all remote elements
};

/// Exact loads; `allowSeparable` false forces enumeration.
void transferLoads(const Machine &machine, const ProducerGrid &producer,
                   const ConsumerTiles &tiles, bool allowSeparable,
                   TransferLoads &loads);

/// What sets a transfer's time: the busiest resource of each kind (bytes,
/// either direction) and the most messages any device sends or receives.
struct TransferPeaks {
  /// 0 when pair links are as fast as a device's port (it then never sets
  /// the time), as in TransferLoads.
  double maxPairBytes = 0;
  double maxPortBytes = 0;
  double maxNicBytes = 0;
  int64_t maxMessages = 0;
  int64_t elements = 0;
};

/// The peaks of per-device loads.
TransferPeaks peaksOf(const TransferLoads &loads);

/// The peaks of a transfer, exact: by the separable form where the tiles
/// have one, else by enumeration. With `perDevice`, the separable form
/// also records every device's and node's loads there (the tests compare
/// them with enumeration's).
TransferPeaks transferPeaks(const Machine &machine,
                            const ProducerGrid &producer,
                            const ConsumerTiles &tiles,
                            TransferLoads *perDevice = nullptr);

/// One box a producer task sends a consumer task (global coordinates).
struct BoxMove {
  int64_t src, dst;
  TileBox box;
};

/// The static plan of a transfer: every box that must move, ordered by
/// consumer task, then producer task.
std::vector<BoxMove> transferPlan(const ProducerGrid &producer,
                                  const ConsumerTiles &tiles);

/// True when every consumer task reads exactly the tile its own device
/// holds: the layers' tiles agree and no transfer is needed.
bool readsOwnDeviceTile(const ProducerGrid &producer,
                        const ConsumerTiles &tiles);

/// Calls `flow` for every (producer task, consumer task) pair on different
/// devices that must move data; each pair once.
void forEachFlow(const std::vector<int64_t> &producerShape,
                 const ParallelConfig &producer, const ConsumerTiles &tiles,
                 const std::function<void(const Flow &)> &flow);

} // namespace hd

#endif // HD_COSTMODEL_TRANSFER_H
