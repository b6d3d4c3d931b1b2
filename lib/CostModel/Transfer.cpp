//===- Transfer.cpp - who sends what to whom between two layers -----------===//

#include "hd/CostModel/Transfer.h"

#include <algorithm>

namespace hd {

namespace {

/// Row-major coordinates of every task of a grid.
std::vector<std::vector<int64_t>> gridCoords(const std::vector<int64_t> &deg,
                                             int64_t tasks) {
  std::vector<std::vector<int64_t>> coords(tasks,
                                           std::vector<int64_t>(deg.size()));
  for (int64_t t = 0; t < tasks; ++t) {
    int64_t rest = t;
    for (size_t i = deg.size(); i-- > 0;) {
      coords[t][i] = rest % deg[i];
      rest /= deg[i];
    }
  }
  return coords;
}

/// The flow visitor: inline, as it is the inner loop of enumeration.
template <typename FlowFn>
void visitFlows(const std::vector<int64_t> &producerShape,
                const ParallelConfig &producer,
                const std::vector<TileBox> &boxes, FlowFn &&flow) {
  const std::vector<int64_t> &pd = producer.degrees;
  size_t rank = producerShape.size();
  int64_t first[kMaxRank], count[kMaxRank], pick[kMaxRank];
  for (int64_t q = 0; q < static_cast<int64_t>(boxes.size()); ++q) {
    const TileBox &box = boxes[q];
    if (box.empty())
      continue;
    for (size_t d = 0; d < rank; ++d) {
      first[d] = blockPartOf(producerShape[d], pd[d], box[d].lo);
      count[d] = blockPartOf(producerShape[d], pd[d], box[d].hi - 1) -
                 first[d] + 1;
      pick[d] = 0;
    }
    // Every combination of overlapping parts is one producer task.
    while (true) {
      int64_t task = 0, elements = 1;
      for (size_t d = 0; d < rank; ++d) {
        int64_t part = first[d] + pick[d];
        task = task * pd[d] + part;
        elements *=
            intersect(blockPart(producerShape[d], pd[d], part), box[d]).size();
      }
      if (task != q && elements > 0)
        flow(Flow{task, q, elements});
      size_t d = rank;
      while (d-- > 0) {
        if (++pick[d] < count[d])
          break;
        pick[d] = 0;
      }
      if (d == size_t(-1))
        break;
    }
  }
}

void addFlow(const Machine &m, const Flow &f, TransferLoads &loads) {
  double bytes = 4.0 * f.elements;
  loads.elements += f.elements;
  ++loads.msgsOut[f.src];
  ++loads.msgsIn[f.dst];
  int64_t a = m.nodeOf(f.src), b = m.nodeOf(f.dst);
  if (a == b) {
    loads.maxPairBytes = std::max(loads.maxPairBytes, bytes);
    loads.devOut[f.src] += bytes;
    loads.devIn[f.dst] += bytes;
  } else {
    loads.nicOut[a] += bytes;
    loads.nicIn[b] += bytes;
  }
}

void separableLoads(const Machine &m, const ProducerGrid &grid,
                    const ConsumerTiles &tiles, TransferLoads &loads) {
  const std::vector<int64_t> &shape = grid.shape;
  const std::vector<int64_t> &pd = grid.config.degrees;
  const std::vector<int64_t> &cd = tiles.degrees;
  int64_t P = grid.config.tasks(), Q = tiles.boxes.size();
  size_t rank = shape.size();
  const std::vector<int64_t> &partOffset = grid.partOffset;

  // Reused per thread: per-part column sums and counts, per-range part
  // counts, self overlaps, same-node port loads.
  struct Scratch {
    std::vector<int64_t> colSum, colCount, self;
    std::vector<std::vector<int64_t>> rangeParts;
    std::vector<double> intraOut, intraIn;
  };
  thread_local Scratch sc;
  // Elements producer task p sends consumer task q.
  auto pair = [&](int64_t p, int64_t q) {
    const TileBox &box = tiles.boxes[q];
    int64_t e = 1;
    for (size_t d = 0; d < rank && e; ++d)
      e *= intersect(grid.parts[partOffset[d] + grid.coords[p * rank + d]],
                     box[d])
               .size();
    return e;
  };

  // Per producer dim and part: the elements all values of the consumer
  // coordinate the dim follows read from it, and how many values read.
  sc.colSum.assign(partOffset[rank], 0);
  sc.colCount.assign(partOffset[rank], 0);
  // Per dim and value of the coordinate it follows: how many producer parts
  // the range overlaps.
  sc.rangeParts.resize(rank);
  int64_t repeat = 1; // consumer coordinates no dim follows repeat reads
  for (size_t j = 0; j < cd.size(); ++j)
    if (std::find(tiles.coordOf.begin(), tiles.coordOf.end(),
                  static_cast<int>(j)) == tiles.coordOf.end())
      repeat *= cd[j];
  for (size_t d = 0; d < rank; ++d) {
    sc.rangeParts[d].assign(tiles.ranges[d].size(), 0);
    for (size_t v = 0; v < tiles.ranges[d].size(); ++v) {
      const Range &r = tiles.ranges[d][v];
      if (r.empty())
        continue;
      int64_t first = blockPartOf(shape[d], pd[d], r.lo);
      int64_t last = blockPartOf(shape[d], pd[d], r.hi - 1);
      sc.rangeParts[d][v] = last - first + 1;
      for (int64_t i = first; i <= last; ++i) {
        sc.colSum[partOffset[d] + i] +=
            intersect(grid.parts[partOffset[d] + i], r).size();
        ++sc.colCount[partOffset[d] + i];
      }
    }
  }

  // What each device keeps local (its producer task's part of its own
  // consumer task's box), computed once for both sides.
  int64_t both = std::min(P, Q);
  sc.self.resize(both);
  for (int64_t t = 0; t < both; ++t)
    sc.self[t] = pair(t, t);

  // Same-node pairs, visited directly: they load pair links and ports.
  sc.intraOut.assign(P, 0);
  sc.intraIn.assign(Q, 0);
  for (int64_t q = 0; q < Q; ++q) {
    int64_t lo = m.nodeOf(q) * m.devicesPerNode;
    int64_t hi = std::min(P, lo + m.devicesPerNode);
    for (int64_t p = lo; p < hi; ++p) {
      if (p == q)
        continue;
      if (int64_t e = pair(p, q)) {
        double bytes = 4.0 * e;
        loads.maxPairBytes = std::max(loads.maxPairBytes, bytes);
        sc.intraOut[p] += bytes;
        sc.intraIn[q] += bytes;
      }
    }
  }

  // Consumer side: all it reads is its box; all it talks to is the product
  // of the overlapping part counts.
  for (int64_t q = 0; q < Q; ++q) {
    const TileBox &box = tiles.boxes[q];
    int64_t self = q < both ? sc.self[q] : 0;
    int64_t in = box.volume() - self;
    if (in <= 0)
      continue;
    int64_t msgs = 1;
    for (size_t d = 0; d < rank; ++d) {
      int j = tiles.coordOf[d];
      msgs *= sc.rangeParts[d][j < 0 ? 0 : tiles.coords[q * cd.size() + j]];
    }
    loads.msgsIn[q] = msgs - (self > 0 ? 1 : 0);
    loads.elements += in;
    loads.devIn[q] = sc.intraIn[q];
    loads.nicIn[m.nodeOf(q)] += 4.0 * in - sc.intraIn[q];
  }
  // Producer side: what it sends factors over the dims.
  for (int64_t p = 0; p < P; ++p) {
    int64_t out = repeat, msgs = repeat;
    for (size_t d = 0; d < rank; ++d) {
      int64_t i = partOffset[d] + grid.coords[p * rank + d];
      out *= sc.colSum[i];
      msgs *= sc.colCount[i];
    }
    int64_t self = p < both ? sc.self[p] : 0;
    out -= self;
    if (out <= 0)
      continue;
    loads.msgsOut[p] = msgs - (self > 0 ? 1 : 0);
    loads.devOut[p] = sc.intraOut[p];
    loads.nicOut[m.nodeOf(p)] += 4.0 * out - sc.intraOut[p];
  }
}

} // namespace

ProducerGrid producerGrid(const std::vector<int64_t> &shape,
                          const ParallelConfig &config) {
  ProducerGrid grid{shape, config, {}, {0}, {}};
  const std::vector<int64_t> &pd = config.degrees;
  size_t rank = shape.size();
  for (size_t d = 0; d < rank; ++d) {
    grid.partOffset.push_back(grid.partOffset.back() + pd[d]);
    for (int64_t i = 0; i < pd[d]; ++i)
      grid.parts.push_back(blockPart(shape[d], pd[d], i));
  }
  for (const auto &c : gridCoords(pd, config.tasks()))
    grid.coords.insert(grid.coords.end(), c.begin(), c.end());
  return grid;
}

ConsumerTiles consumerTiles(const Layer &consumer, unsigned operand,
                            const ParallelConfig &config) {
  ConsumerTiles tiles;
  tiles.degrees = config.degrees;
  int64_t Q = config.tasks();
  for (int64_t q = 0; q < Q; ++q)
    tiles.boxes.push_back(consumer.inputBox(
        operand, tileOfTask(consumer.shape, config.degrees, q)));
  if (tiles.boxes.empty())
    return tiles;
  // Find, per operand dim, the one consumer coordinate its range follows.
  auto coords = gridCoords(config.degrees, Q);
  for (const auto &c : coords)
    tiles.coords.insert(tiles.coords.end(), c.begin(), c.end());
  unsigned rank = tiles.boxes.front().rank();
  std::vector<bool> taken(config.degrees.size(), false);
  tiles.separable = true;
  for (unsigned d = 0; d < rank && tiles.separable; ++d) {
    bool constant = std::all_of(tiles.boxes.begin(), tiles.boxes.end(),
                                [&](const TileBox &b) {
                                  return b[d] == tiles.boxes.front()[d];
                                });
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
        int64_t v = coords[q][j];
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
        someEmpty |= tiles.ranges[d][j < 0 ? 0 : coords[q][j]].empty();
      }
      tiles.separable = someEmpty;
    }
  return tiles;
}

void forEachFlow(const std::vector<int64_t> &producerShape,
                 const ParallelConfig &producer, const ConsumerTiles &tiles,
                 const std::function<void(const Flow &)> &flow) {
  visitFlows(producerShape, producer, tiles.boxes, flow);
}

void transferLoads(const Machine &machine, const ProducerGrid &producer,
                   const ConsumerTiles &tiles, bool allowSeparable,
                   TransferLoads &loads) {
  int64_t devices =
      std::max<int64_t>(producer.config.tasks(), tiles.boxes.size());
  int64_t nodes = machine.nodeOf(devices - 1) + 1;
  loads.maxPairBytes = 0;
  loads.elements = 0;
  for (auto *v : {&loads.devOut, &loads.devIn})
    v->assign(devices, 0);
  for (auto *v : {&loads.nicOut, &loads.nicIn})
    v->assign(nodes, 0);
  for (auto *v : {&loads.msgsOut, &loads.msgsIn})
    v->assign(devices, 0);
  if (allowSeparable && tiles.separable)
    return separableLoads(machine, producer, tiles, loads);
  visitFlows(producer.shape, producer.config, tiles.boxes,
             [&](const Flow &f) { addFlow(machine, f, loads); });
}

} // namespace hd

namespace hd {

std::vector<BoxMove> transferPlan(const ProducerGrid &producer,
                                  const ConsumerTiles &tiles) {
  std::vector<BoxMove> plan;
  visitFlows(producer.shape, producer.config, tiles.boxes,
             [&](const Flow &f) {
               TileBox tile = tileOfTask(producer.shape,
                                         producer.config.degrees, f.src);
               plan.push_back({f.src, f.dst, intersect(tiles.boxes[f.dst],
                                                       tile)});
             });
  return plan;
}

bool readsOwnDeviceTile(const ProducerGrid &producer,
                        const ConsumerTiles &tiles) {
  if (producer.config.tasks() != static_cast<int64_t>(tiles.boxes.size()))
    return false;
  for (size_t q = 0; q < tiles.boxes.size(); ++q)
    if (tiles.boxes[q] !=
        tileOfTask(producer.shape, producer.config.degrees, q))
      return false;
  return true;
}

} // namespace hd
