//===- TransferTiles.h - a transfer's sides for cost passes -----*- C++ -*-===//
//
// Tiling's geometry of a transfer (TileGrid, ConsumerBoxes), with what the
// cost model's vector passes read besides: every task's tile and box as
// intervals of doubles, laid out by dimension; the consumer's separable
// form, where each dimension of a task's box follows one coordinate of the
// task; and the boxes each node's tasks hold or read together. Tables build
// a producer's grid once per row and a consumer's tiles once per column.
//
//===----------------------------------------------------------------------===//

#ifndef HD_COSTMODEL_TRANSFERTILES_H
#define HD_COSTMODEL_TRANSFERTILES_H

#include "hd/CostModel/LayerGraph.h"
#include "hd/Tiling/TileGrid.h"
#include "hd/Tiling/TransferPlan.h"

#include <vector>

namespace hd {

/// Boxes of each node's tasks, for nodes of `nodeSize` devices (0: not
/// computed), laid out per device for the vector passes: box k of device
/// t's node, dim d, at [(k * rank + d) * devices + t], for the `devices`
/// of the nodes that hold tasks; an empty box where a node has fewer than
/// `slots`.
struct NodeBoxes {
  int64_t nodeSize = 0, slots = 0, devices = 0;
  std::vector<double> lo, hi;
};

/// The input boxes that every task of a consumer reads from one operand,
/// with their separable form.
struct ConsumerTiles : ConsumerBoxes {
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

/// A producer's tiles: its grid, and its tasks' tiles and its nodes' boxes
/// as the vector passes read them. Depends on the producer alone, so tables
/// compute it once per row.
struct ProducerGrid : TileGrid {
  /// Per dim d and task p, at [d * tasks + p]: its tile's interval (as in
  /// ConsumerTiles).
  std::vector<double> tileLo, tileHi;
  /// The element boxes each node's tasks hold together.
  NodeBoxes nodeBoxes;
  /// Bytes of one element of the producer's output (its output type).
  double elementBytes = 4;
};

/// With `devicesPerNode`, the node boxes are computed once here rather
/// than in every transfer of the grid.
ProducerGrid producerGrid(const std::vector<int64_t> &shape,
                          const ParallelConfig &config,
                          int64_t devicesPerNode = 0);
/// The grid of `producer`'s output, in its output type.
ProducerGrid producerGrid(const Layer &producer, const ParallelConfig &config,
                          int64_t devicesPerNode = 0);

/// The element boxes that each node's producer tasks hold together, for
/// nodes of `devicesPerNode`: what producerGrid keeps for one node size.
NodeBoxes producerNodeBoxes(const ProducerGrid &grid, int64_t devicesPerNode);

} // namespace hd

#endif // HD_COSTMODEL_TRANSFERTILES_H
