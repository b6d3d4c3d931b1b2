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
  double bytes = kBytesPerElement * f.elements;
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

/// Calls fn(box) for the sub-boxes of a grid (row-major over `degrees`)
/// whose union is the task range [lo, hi): at most two per dimension.
/// box[d] is a range of coordinates of dimension d.
template <typename Fn>
void forEachSubBox(const std::vector<int64_t> &degrees, int64_t lo, int64_t hi,
                   Fn &&fn) {
  size_t rank = degrees.size();
  int64_t stride[kMaxRank + 1];
  stride[rank] = 1;
  for (size_t d = rank; d-- > 0;)
    stride[d] = stride[d + 1] * degrees[d];
  Range box[kMaxRank];
  // [lo, hi) lies within one block of dim d - 1, whose coordinates up to
  // d - 1 are already in `box`; `base` is that block's first task.
  auto split = [&](auto &self, size_t d, int64_t base, int64_t lo,
                   int64_t hi) -> void {
    if (lo >= hi)
      return;
    if (d == rank) {
      fn(box);
      return;
    }
    int64_t s = stride[d + 1];
    int64_t a = (lo - base) / s, b = (hi - base) / s;
    int64_t aRest = (lo - base) % s, bRest = (hi - base) % s;
    if (a == b) {
      box[d] = {a, a + 1};
      return self(self, d + 1, base + a * s, lo, hi);
    }
    if (aRest > 0) {
      box[d] = {a, a + 1};
      self(self, d + 1, base + a * s, lo, base + (a + 1) * s);
      ++a;
    }
    if (a < b) {
      box[d] = {a, b};
      for (size_t e = d + 1; e < rank; ++e)
        box[e] = {0, degrees[e]};
      fn(box);
    }
    if (bRest > 0) {
      box[d] = {b, b + 1};
      self(self, d + 1, base + b * s, base + b * s, hi);
    }
  };
  split(split, 0, 0, lo, hi);
}

/// The separable form's per-dimension tables. For operand dim d, producer
/// part a and value v of the consumer coordinate d follows (0 when none):
/// overlap(d, a, v) elements; and prefix sums of it over a and over v, so
/// that a sub-box of producer or consumer tasks sums in O(rank).
struct Overlaps {
  size_t rank = 0;
  std::vector<int64_t> parts, values;   // per dim
  std::vector<std::vector<int64_t>> ov; // [d][a * values + v]
  std::vector<std::vector<int64_t>> overA; // [d][a * values + v], a <= parts
  std::vector<std::vector<int64_t>> overV; // [d][a * (values + 1) + v]

  int64_t overlap(size_t d, int64_t a, int64_t v) const {
    return ov[d][a * values[d] + v];
  }
  /// Sum over producer parts [lo, hi) of dim d.
  int64_t sumParts(size_t d, Range r, int64_t v) const {
    return overA[d][r.hi * values[d] + v] - overA[d][r.lo * values[d] + v];
  }
  /// Sum over consumer values [lo, hi) of dim d's coordinate.
  int64_t sumValues(size_t d, int64_t a, Range r) const {
    const int64_t *row = &overV[d][a * (values[d] + 1)];
    return row[r.hi] - row[r.lo];
  }
};

void buildOverlaps(const ProducerGrid &grid, const ConsumerTiles &tiles,
                   Overlaps &o) {
  o.rank = grid.shape.size();
  o.parts.resize(o.rank);
  o.values.resize(o.rank);
  o.ov.resize(o.rank);
  o.overA.resize(o.rank);
  o.overV.resize(o.rank);
  for (size_t d = 0; d < o.rank; ++d) {
    int64_t A = grid.config.degrees[d], V = tiles.ranges[d].size();
    o.parts[d] = A;
    o.values[d] = V;
    o.ov[d].resize(A * V);
    o.overA[d].assign((A + 1) * V, 0);
    o.overV[d].assign(A * (V + 1), 0);
    for (int64_t a = 0; a < A; ++a)
      for (int64_t v = 0; v < V; ++v) {
        int64_t e = intersect(grid.parts[grid.partOffset[d] + a],
                              tiles.ranges[d][v])
                        .size();
        o.ov[d][a * V + v] = e;
        o.overA[d][(a + 1) * V + v] = o.overA[d][a * V + v] + e;
        o.overV[d][a * (V + 1) + v + 1] = o.overV[d][a * (V + 1) + v] + e;
      }
  }
}

void separableLoads(const Machine &m, const ProducerGrid &grid,
                    const ConsumerTiles &tiles, TransferLoads &loads) {
  const std::vector<int64_t> &shape = grid.shape;
  const std::vector<int64_t> &pd = grid.config.degrees;
  const std::vector<int64_t> &cd = tiles.degrees;
  int64_t P = grid.config.tasks(), Q = tiles.boxes.size();
  size_t rank = shape.size(), crank = cd.size();
  const std::vector<int64_t> &partOffset = grid.partOffset;
  int64_t perNode = m.devicesPerNode;

  // Reused per thread: the overlap tables, per-part column sums and
  // counts, per-range part counts, self overlaps, consumer values, and
  // same-node port loads.
  struct Scratch {
    Overlaps o;
    std::vector<int64_t> colSum, colCount, self, value;
    std::vector<std::vector<int64_t>> rangeParts;
    std::vector<int64_t> intraOut, intraIn;
    std::vector<bool> followed;
  };
  thread_local Scratch sc;
  buildOverlaps(grid, tiles, sc.o);
  const Overlaps &o = sc.o;
  // value[q * rank + d]: the value of the consumer coordinate dim d
  // follows, for consumer task q.
  sc.value.resize(Q * rank);
  for (int64_t q = 0; q < Q; ++q)
    for (size_t d = 0; d < rank; ++d) {
      int j = tiles.coordOf[d];
      sc.value[q * rank + d] = j < 0 ? 0 : tiles.coords[q * crank + j];
    }
  // Elements producer task p sends consumer task q.
  auto pair = [&](int64_t p, int64_t q) {
    int64_t e = 1;
    for (size_t d = 0; d < rank && e; ++d)
      e *= o.overlap(d, grid.coords[p * rank + d], sc.value[q * rank + d]);
    return e;
  };

  // Per producer dim and part: the elements all values of the consumer
  // coordinate the dim follows read from it, and how many values read.
  sc.colSum.assign(partOffset[rank], 0);
  sc.colCount.assign(partOffset[rank], 0);
  // Per dim and value of the coordinate it follows: how many producer parts
  // the range overlaps.
  sc.rangeParts.resize(rank);
  sc.followed.assign(crank, false);
  for (size_t d = 0; d < rank; ++d)
    if (tiles.coordOf[d] >= 0)
      sc.followed[tiles.coordOf[d]] = true;
  int64_t repeat = 1; // consumer coordinates no dim follows repeat reads
  for (size_t j = 0; j < crank; ++j)
    if (!sc.followed[j])
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
        sc.colSum[partOffset[d] + i] += o.overlap(d, i, v);
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

  // Same-node traffic, one node at a time: the node's producer (consumer)
  // tasks form a few sub-boxes of the producer (consumer) grid, over which
  // the overlaps sum dimension by dimension.
  sc.intraOut.assign(P, 0);
  sc.intraIn.assign(Q, 0);
  bool pairLinksMatter = m.intraNodeGbps < m.deviceGbps;
  for (int64_t lo = 0; lo < std::max(P, Q); lo += perNode) {
    int64_t pEnd = std::min(P, lo + perNode), qEnd = std::min(Q, lo + perNode);
    if (lo >= pEnd || lo >= qEnd)
      continue;
    // In: each consumer task of the node from the node's producer tasks.
    forEachSubBox(pd, lo, pEnd, [&](const Range *box) {
      for (int64_t q = lo; q < qEnd; ++q) {
        int64_t e = 1;
        for (size_t d = 0; d < rank && e; ++d)
          e *= o.sumParts(d, box[d], sc.value[q * rank + d]);
        sc.intraIn[q] += e;
      }
    });
    // Out: each producer task of the node to the node's consumer tasks.
    forEachSubBox(cd, lo, qEnd, [&](const Range *box) {
      int64_t unfollowed = 1;
      for (size_t j = 0; j < crank; ++j)
        if (!sc.followed[j])
          unfollowed *= box[j].size();
      for (int64_t p = lo; p < pEnd; ++p) {
        int64_t e = unfollowed;
        for (size_t d = 0; d < rank && e; ++d) {
          int j = tiles.coordOf[d];
          int64_t a = grid.coords[p * rank + d];
          e *= j < 0 ? o.overlap(d, a, 0) : o.sumValues(d, a, box[j]);
        }
        sc.intraOut[p] += e;
      }
    });
    // A task's own device is not a link: take its self part out.
    for (int64_t t = lo; t < std::min(pEnd, qEnd); ++t) {
      sc.intraIn[t] -= sc.self[t];
      sc.intraOut[t] -= sc.self[t];
    }
    // The busiest pair link can only set the time when it is slower than
    // a device's port.
    if (pairLinksMatter)
      for (int64_t q = lo; q < qEnd; ++q)
        for (int64_t p = lo; p < pEnd; ++p)
          if (p != q)
            loads.maxPairBytes = std::max(loads.maxPairBytes,
                                          kBytesPerElement * double(pair(p, q)));
  }

  // Consumer side: all it reads is its box; all it talks to is the product
  // of the overlapping part counts.
  for (int64_t q = 0, node = 0, nodeEnd = perNode; q < Q; ++q) {
    if (q == nodeEnd) {
      ++node;
      nodeEnd += perNode;
    }
    const TileBox &box = tiles.boxes[q];
    int64_t self = q < both ? sc.self[q] : 0;
    int64_t in = box.volume() - self;
    if (in <= 0)
      continue;
    int64_t msgs = 1;
    for (size_t d = 0; d < rank; ++d)
      msgs *= sc.rangeParts[d][sc.value[q * rank + d]];
    loads.msgsIn[q] = msgs - (self > 0 ? 1 : 0);
    loads.elements += in;
    loads.devIn[q] = kBytesPerElement * double(sc.intraIn[q]);
    loads.nicIn[node] += kBytesPerElement * double(in - sc.intraIn[q]);
  }
  // Producer side: what it sends factors over the dims.
  for (int64_t p = 0, node = 0, nodeEnd = perNode; p < P; ++p) {
    if (p == nodeEnd) {
      ++node;
      nodeEnd += perNode;
    }
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
    loads.devOut[p] = kBytesPerElement * double(sc.intraOut[p]);
    loads.nicOut[node] += kBytesPerElement * double(out - sc.intraOut[p]);
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
