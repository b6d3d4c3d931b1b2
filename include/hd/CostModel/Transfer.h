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
//     every hd layer), per-device totals factor into per-dimension sums, and
//     so do a node's same-node totals (its tasks form a few sub-boxes of
//     each grid). Tables use this one; tests check it against enumeration.
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

/// The input boxes that every task of a consumer reads from one operand.
struct ConsumerTiles {
  std::vector<int64_t> degrees;  // the consumer's configuration
  std::vector<TileBox> boxes;    // per consumer task
  std::vector<int64_t> coords;   // per task, its grid coordinates (flat)
  /// Separable form: for each dim of the operand, the consumer grid
  /// coordinate its range depends on (-1: the same for every task) and the
  /// range for each value of that coordinate.
  bool separable = false;
  std::vector<int> coordOf;
  std::vector<std::vector<Range>> ranges;
};

ConsumerTiles consumerTiles(const Layer &consumer, unsigned operand,
                            const ParallelConfig &config);

/// A producer's tiles: its block parts per dim and its tasks' coordinates.
/// Depends on the producer alone, so tables compute it once per row.
struct ProducerGrid {
  std::vector<int64_t> shape;
  ParallelConfig config;
  std::vector<Range> parts;         // parts of dim d start at partOffset[d]
  std::vector<int64_t> partOffset;  // rank + 1 entries
  std::vector<int64_t> coords;      // per task, its grid coordinates (flat)
};

ProducerGrid producerGrid(const std::vector<int64_t> &shape,
                          const ParallelConfig &config);

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
