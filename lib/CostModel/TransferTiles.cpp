//===- TransferTiles.cpp - a transfer's sides for cost passes -------------===//
//
// Builds ProducerGrid and ConsumerTiles (TransferTiles.h) from Tiling's
// geometry: the intervals the vector passes read, the consumer's separable
// form, found by checking which grid coordinate each dimension of the boxes
// follows, and the merged boxes of each node's tasks.
//
//===----------------------------------------------------------------------===//

#include "hd/CostModel/TransferTiles.h"

#include <algorithm>

namespace hd {

/// Empty NodeBoxes for `sub`'s layout: dim d of box k of node n is
/// [(k * rank + d) * devices + n * perNode, ...+ perNode).
static NodeBoxes emptyNodeBoxes(const NodeSubBoxes &sub, size_t rank,
                                int64_t perNode) {
  NodeBoxes b{perNode, sub.slots, sub.devices, {}, {}};
  b.lo.assign(sub.slots * rank * sub.devices, 0.0);
  b.hi.assign(sub.slots * rank * sub.devices, 0.0);
  return b;
}

NodeBoxes producerNodeBoxes(const ProducerGrid &grid, int64_t perNode) {
  NodeSubBoxes sub = nodeSubBoxes(grid.config.degrees, perNode);
  size_t rank = grid.shape.size();
  NodeBoxes b = emptyNodeBoxes(sub, rank, perNode);
  for (size_t n = 0; n + 1 < sub.offset.size(); ++n)
    for (int64_t k = 0; k < sub.offset[n + 1] - sub.offset[n]; ++k)
      for (size_t d = 0; d < rank; ++d) {
        const Range &r = sub.boxes[(sub.offset[n] + k) * rank + d];
        const Range *parts = &grid.parts[grid.partOffset[d]];
        size_t at = (k * rank + d) * b.devices + n * perNode;
        std::fill_n(&b.lo[at], perNode, double(parts[r.lo].lo));
        std::fill_n(&b.hi[at], perNode, double(parts[r.hi - 1].hi));
      }
  return b;
}

ProducerGrid producerGrid(const std::vector<int64_t> &shape,
                          const ParallelConfig &config,
                          int64_t devicesPerNode) {
  ProducerGrid grid{tileGrid(shape, config)};
  size_t rank = shape.size();
  int64_t P = config.tasks();
  grid.tileLo.resize(P * rank);
  grid.tileHi.resize(P * rank);
  for (size_t d = 0; d < rank; ++d) {
    const Range *parts = &grid.parts[grid.partOffset[d]];
    for (int64_t p = 0; p < P; ++p) {
      const Range &tile = parts[grid.coords[d * P + p]];
      grid.tileLo[d * P + p] = double(tile.lo);
      grid.tileHi[d * P + p] = double(tile.hi);
    }
  }
  if (devicesPerNode > 0)
    grid.nodeBoxes = producerNodeBoxes(grid, devicesPerNode);
  return grid;
}

ProducerGrid producerGrid(const Layer &producer, const ParallelConfig &config,
                          int64_t devicesPerNode) {
  ProducerGrid grid = producerGrid(producer.shape, config, devicesPerNode);
  grid.elementBytes = bytesOf(producer.numerics.output);
  return grid;
}

/// The consumer's node boxes (ConsumerTiles::nodeBoxes), where each dim's
/// ranges lie side by side.
static void consumerNodeBoxes(ConsumerTiles &tiles, int64_t perNode) {
  size_t rank = tiles.ranges.size(), crank = tiles.degrees.size();
  for (size_t d = 0; d < rank; ++d)
    for (size_t v = 0; v < tiles.ranges[d].size(); ++v)
      if (tiles.ranges[d][v].empty() ||
          (v > 0 && tiles.ranges[d][v].lo != tiles.ranges[d][v - 1].hi))
        return; // a halo, a gap or an empty range
  NodeSubBoxes sub = nodeSubBoxes(tiles.degrees, perNode);
  int64_t devices = sub.devices;
  NodeBoxes &b = tiles.nodeBoxes = emptyNodeBoxes(sub, rank, perNode);
  tiles.nodeBoxReads.assign(sub.slots * devices, 0.0);
  for (size_t n = 0; n + 1 < sub.offset.size(); ++n)
    for (int64_t k = 0; k < sub.offset[n + 1] - sub.offset[n]; ++k) {
      const Range *box = &sub.boxes[(sub.offset[n] + k) * crank];
      double reads = 1;
      for (size_t j = 0; j < crank; ++j)
        if (std::find(tiles.coordOf.begin(), tiles.coordOf.end(), int(j)) ==
            tiles.coordOf.end())
          reads *= double(box[j].size());
      std::fill_n(&tiles.nodeBoxReads[k * devices + n * perNode], perNode,
                  reads);
      for (size_t d = 0; d < rank; ++d) {
        int j = tiles.coordOf[d];
        const std::vector<Range> &r = tiles.ranges[d];
        Range hull = j < 0 ? r[0] : Range{r[box[j].lo].lo, r[box[j].hi - 1].hi};
        size_t at = (k * rank + d) * devices + n * perNode;
        std::fill_n(&b.lo[at], perNode, double(hull.lo));
        std::fill_n(&b.hi[at], perNode, double(hull.hi));
      }
    }
}

ConsumerTiles consumerTiles(const Layer &consumer, unsigned operand,
                            const ParallelConfig &config,
                            int64_t devicesPerNode) {
  ConsumerTiles tiles{
      consumerBoxes(consumer.shape, config, [&](const TileBox &tile) {
        return consumer.inputBox(operand, tile);
      })};
  if (tiles.boxes.empty())
    return tiles;
  int64_t Q = config.tasks();
  size_t crank = config.degrees.size();
  std::vector<int64_t> coords; // task q's at [q * crank]
  coords.reserve(Q * crank);
  forEachTile(consumer.shape, config.degrees,
              [&](int64_t, const int64_t *coord, const TileBox &) {
                coords.insert(coords.end(), coord, coord + crank);
              });
  // Find, per operand dim, the one consumer coordinate its range follows.
  unsigned rank = tiles.boxes.front().rank();
  std::vector<bool> taken(config.degrees.size(), false);
  tiles.separable = true;
  for (unsigned d = 0; d < rank && tiles.separable; ++d) {
    bool constant = std::all_of(
        tiles.boxes.begin(), tiles.boxes.end(),
        [&](const TileBox &b) { return b[d] == tiles.boxes.front()[d]; });
    if (constant) {
      tiles.coordOf.push_back(-1);
      tiles.ranges.push_back({tiles.boxes.front()[d]});
      continue;
    }
    int found = -1;
    for (size_t j = 0; j < config.degrees.size() && found < 0; ++j) {
      if (taken[j])
        continue;
      std::vector<Range> byValue(config.degrees[j]);
      std::vector<bool> seen(config.degrees[j], false);
      bool follows = true;
      for (int64_t q = 0; q < Q && follows; ++q) {
        int64_t v = coords[q * crank + j];
        if (!seen[v]) {
          seen[v] = true;
          byValue[v] = tiles.boxes[q][d];
        } else {
          follows = byValue[v] == tiles.boxes[q][d];
        }
      }
      if (follows) {
        found = static_cast<int>(j);
        tiles.ranges.push_back(std::move(byValue));
      }
    }
    if (found < 0)
      tiles.separable = false;
    else
      taken[found] = true;
    tiles.coordOf.push_back(found);
  }
  // Empty boxes (a concat input a tile does not touch) must be empty in the
  // separable form too: one empty range per box, which the product keeps.
  if (tiles.separable)
    for (int64_t q = 0; q < Q && tiles.separable; ++q) {
      if (!tiles.boxes[q].empty())
        continue;
      bool someEmpty = false;
      for (unsigned d = 0; d < rank; ++d) {
        int j = tiles.coordOf[d];
        someEmpty |= tiles.ranges[d][j < 0 ? 0 : coords[q * crank + j]].empty();
      }
      tiles.separable = someEmpty;
    }
  if (tiles.separable) {
    for (const TileBox &box : tiles.boxes)
      tiles.volumes.push_back(double(box.volume()));
    tiles.boxLo.resize(Q * rank);
    tiles.boxHi.resize(Q * rank);
    for (int64_t q = 0; q < Q; ++q)
      for (unsigned d = 0; d < rank; ++d) {
        tiles.boxLo[d * Q + q] = double(tiles.boxes[q][d].lo);
        tiles.boxHi[d * Q + q] = double(tiles.boxes[q][d].hi);
      }
    if (devicesPerNode > 0)
      consumerNodeBoxes(tiles, devicesPerNode);
  }
  return tiles;
}

} // namespace hd
