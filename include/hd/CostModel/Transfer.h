//===- Transfer.h - what a transfer loads on a machine's links --*- C++ -*-===//
//
// The data a consumer layer's tasks need from a producer layer's tasks, from
// the exact boxes (the plan of hd/Tiling/TransferPlan.h), summarized as the
// load on every resource a transfer uses: each intra-node device pair's
// link, each device's intra-node ports, and each node's network interface
// (both directions), plus message counts.
//
// Two exact ways to get there:
//   - enumeration (TransferLoads.cpp): every (producer task, consumer task)
//     pair that overlaps;
//   - separable (SeparablePeaks.cpp): when each dimension of a consumer
//     task's input box depends on at most one coordinate of the task in the
//     consumer's grid (true of every hd layer), a device's volumes are
//     products of per-dimension intersections, and a node's tasks form a few
//     sub-boxes of each grid, so a consumer task's same-node traffic is a
//     product of intersections with the element intervals those sub-boxes
//     cover: O(rank) a device. A producer task's same-node sends take its
//     node's consumer tasks (O(rank * devices per node)), and only the peaks
//     need them where they could set the busiest port. Tables use this one;
//     tests check it against enumeration.
// Where the devices fall into identical slabs (IdenticalSlabs.cpp), the
// peaks come from the first. The search's bounds need only each side's
// extents (TransferBounds.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef HD_COSTMODEL_TRANSFER_H
#define HD_COSTMODEL_TRANSFER_H

#include "hd/CostModel/Machine.h"
#include "hd/CostModel/TransferTiles.h"

#include <vector>

namespace hd {

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
  double elementBytes = 4; // of the producer's output
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
  std::vector<double> devOut, devIn; // intra-node bytes per device
  std::vector<double> nicOut, nicIn; // inter-node bytes per node
  std::vector<int64_t> msgsOut, msgsIn;
  int64_t elements = 0; // all remote elements
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

} // namespace hd

#endif // HD_COSTMODEL_TRANSFER_H
