//===- Transfer.cpp - who sends what to whom between two layers -----------===//

#include "hd/CostModel/Transfer.h"
#include "hd/Support/VectorClones.h"

#include <algorithm>
#include <numeric>

namespace hd {

namespace {

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

/// The sub-boxes of a grid (coordinate ranges, degrees.size() each) that
/// each node's tasks form (consecutive runs of `perNode` in row-major
/// order): node n's are [offset[n], offset[n + 1]); at most `slots` a
/// node, over `devices` (whole nodes).
struct NodeSubBoxes {
  std::vector<int64_t> offset{0};
  std::vector<Range> boxes;
  int64_t slots = 0, devices = 0;
};
NodeSubBoxes nodeSubBoxes(const std::vector<int64_t> &degrees,
                          int64_t perNode) {
  int64_t tasks = 1;
  for (int64_t d : degrees)
    tasks *= d;
  size_t rank = degrees.size();
  NodeSubBoxes n;
  for (int64_t first = 0; first < tasks; first += perNode) {
    forEachSubBox(degrees, first, std::min(tasks, first + perNode),
                  [&](const Range *box) {
                    n.boxes.insert(n.boxes.end(), box, box + rank);
                  });
    n.offset.push_back(n.boxes.size() / rank);
    n.slots = std::max(n.slots, n.offset.back() - n.offset.end()[-2]);
    n.devices += perNode;
  }
  return n;
}

/// Empty NodeBoxes for `sub`'s layout: dim d of box k of node n is
/// [(k * rank + d) * devices + n * perNode, ...+ perNode).
NodeBoxes emptyNodeBoxes(const NodeSubBoxes &sub, size_t rank,
                         int64_t perNode) {
  NodeBoxes b{perNode, sub.slots, sub.devices, {}, {}};
  b.lo.assign(sub.slots * rank * sub.devices, 0.0);
  b.hi.assign(sub.slots * rank * sub.devices, 0.0);
  return b;
}

/// The element boxes that each node's producer tasks hold together.
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

/// out[t] += the volume of the intersection of boxes a and b of task t,
/// times weight[t] where given, for t in [0, n); dim d of box x at
/// x[d * stride + t].
HD_VECTOR_CLONES
static void addOverlapVolumes(size_t rank, int64_t n,
                              const double *__restrict aLo,
                              const double *__restrict aHi, int64_t aStride,
                              const double *__restrict bLo,
                              const double *__restrict bHi, int64_t bStride,
                              double *__restrict volume,
                              double *__restrict out,
                              const double *__restrict weight = nullptr) {
  for (int64_t t = 0; t < n; ++t)
    volume[t] = weight ? weight[t] : 1.0;
  for (size_t d = 0; d < rank; ++d) {
    const double *__restrict al = aLo + d * aStride, *__restrict ah = aHi + d * aStride;
    const double *__restrict bl = bLo + d * bStride, *__restrict bh = bHi + d * bStride;
    for (int64_t t = 0; t < n; ++t)
      volume[t] *= std::max(std::min(ah[t], bh[t]) - std::max(al[t], bl[t]), 0.0);
  }
  for (int64_t t = 0; t < n; ++t)
    out[t] += volume[t];
}

/// out[t] = scale * the product over dims d of factor[d][coordinate d of
/// task t], for the first n tasks of a row-major grid of these degrees (n
/// a multiple of every degree inner to the outermost one it splits, which
/// it holds a prefix of): their Kronecker product, built innermost dim
/// first so that each step scales a contiguous block.
HD_VECTOR_CLONES
static void gridProducts(const std::vector<int64_t> &degrees,
                         const std::vector<const double *> &factor, int64_t n,
                         double scale, double *__restrict out) {
  out[0] = scale;
  int64_t block = 1;
  for (size_t d = degrees.size(); d-- > 0;) {
    int64_t count = std::min(degrees[d], n / block);
    const double *__restrict f = factor[d];
    // Copies 1.. from the block, then the block itself becomes copy 0.
    for (int64_t k = count - 1; k > 0; --k) {
      double *__restrict to = out + k * block;
      for (int64_t i = 0; i < block; ++i)
        to[i] = out[i] * f[k];
    }
    for (int64_t i = 0; i < block; ++i)
      out[i] *= f[0];
    block *= count;
  }
}

/// One side of a transfer, per task and per node of `perNode` tasks: what
/// a task moves is its total less what stays on its device (`moved`);
/// of what its node holds of its total (`local`; `self` where that is not
/// known), the part that is not its own (`intra`); `msgs` holds its messages
/// counting the one to itself and becomes its remote messages, 0 where it moves
/// nothing. The node sums and maxima go to the node arrays; the maxima over all
/// tasks are returned.
struct SideTotals {
  double maxIntra = 0, maxMsgs = 0;
};
HD_VECTOR_CLONES
static SideTotals sideLoads(int64_t n, int64_t perNode,
                            const double *__restrict total,
                            const double *__restrict self,
                            const double *__restrict local,
                            double *__restrict msgs, double *__restrict moved,
                            double *__restrict intra,
                            double *__restrict nodeMoved,
                            double *__restrict nodeIntra,
                            double *__restrict nodeMostMoved) {
  // One vector pass over the tasks, then the node sums: reductions within
  // each node's few tasks would cost more than they sum.
  double mostIntra = 0, mostMsgs = 0;
#pragma omp simd reduction(max : mostIntra, mostMsgs)
  for (int64_t t = 0; t < n; ++t) {
    double m = total[t] - self[t];
    double x = local[t] - self[t];
    double k = m > 0 ? msgs[t] - (self[t] > 0 ? 1.0 : 0.0) : 0.0;
    moved[t] = m;
    intra[t] = x;
    msgs[t] = k;
    mostIntra = std::max(mostIntra, x);
    mostMsgs = std::max(mostMsgs, k);
  }
  for (int64_t lo = 0, node = 0; lo < n; lo += perNode, ++node) {
    double all = 0, within = 0, most = 0;
    for (int64_t t = lo; t < std::min(n, lo + perNode); ++t) {
      all += moved[t];
      within += intra[t];
      most = std::max(most, moved[t]);
    }
    nodeMoved[node] = all;
    nodeIntra[node] = within;
    nodeMostMoved[node] = most;
  }
  return {mostIntra, mostMsgs};
}

/// intra[p] = what producer task p sends within its node: what it holds of
/// its node's consumer boxes (`held`) less what it keeps, where it sends at
/// all (`moved`); returns the largest.
HD_VECTOR_CLONES
static double sendsWithinNode(int64_t n, const double *__restrict moved,
                              const double *__restrict held,
                              const double *__restrict self,
                              double *__restrict intra) {
  double most = 0;
#pragma omp simd reduction(max : most)
  for (int64_t p = 0; p < n; ++p) {
    double x = moved[p] > 0 ? held[p] - self[p] : 0.0;
    intra[p] = x;
    most = std::max(most, x);
  }
  return most;
}

/// The overlaps of a node's producer tasks [0, pn) with its consumer tasks
/// [0, qn) (interval arrays offset to the node's first task, dim d at
/// d * stride): rowSum[p] gets what producer p sends within the node plus
/// what it keeps; returns the largest overlap of two different devices.
HD_VECTOR_CLONES
static double nodeOverlaps(size_t rank, int64_t pn, int64_t qn,
                           const double *__restrict pLo,
                           const double *__restrict pHi, int64_t pStride,
                           const double *__restrict qLo,
                           const double *__restrict qHi, int64_t qStride,
                           double *__restrict rowSum,
                           double *__restrict volume) {
  double pairMax = 0;
  for (int64_t p = 0; p < pn; ++p) {
    for (int64_t q = 0; q < qn; ++q)
      volume[q] = 1;
    for (size_t d = 0; d < rank; ++d) {
      double lo = pLo[d * pStride + p], hi = pHi[d * pStride + p];
      const double *__restrict bl = qLo + d * qStride;
      const double *__restrict bh = qHi + d * qStride;
      for (int64_t q = 0; q < qn; ++q)
        volume[q] *= std::max(std::min(hi, bh[q]) - std::max(lo, bl[q]), 0.0);
    }
    double sum = 0;
    for (int64_t q = 0; q < qn; ++q) {
      sum += volume[q];
      pairMax = q == p ? pairMax : std::max(pairMax, volume[q]);
    }
    rowSum[p] = sum;
  }
  return pairMax;
}

/// The separable form (see Transfer.h), as vector passes over the tasks.
/// A consumer task's same-node volume is its box's overlap with the few
/// boxes its node's producer tasks form; what it reads in all is its box.
/// What a producer task sends in all, and to how many, are products over
/// the dims. Its same-node volume needs its overlap with each of its
/// node's consumer tasks, so that is computed only where it could set the
/// busiest port (it never exceeds what the task sends, nor what its node's
/// consumers receive within the node), where pair links are slower than
/// ports, or where every load is asked for (`perDevice`).
TransferPeaks separablePeaks(const Machine &m, const ProducerGrid &grid,
                             const ConsumerTiles &tiles,
                             TransferLoads *perDevice) {
  const std::vector<int64_t> &shape = grid.shape;
  const std::vector<int64_t> &pd = grid.config.degrees;
  const std::vector<int64_t> &cd = tiles.degrees;
  const std::vector<std::vector<Range>> &ranges = tiles.ranges;
  const std::vector<int64_t> &partOffset = grid.partOffset;
  int64_t perNode = m.devicesPerNode;
  // The passes run over the first slab's P and Q tasks (identicalSlabs);
  // per-task arrays stay strided by the whole task counts.
  int64_t pStride = grid.config.tasks(), qStride = tiles.boxes.size();
  int64_t slabs = perDevice ? 1 : identicalSlabs(grid, tiles, perNode);
  int64_t P = pStride / slabs, Q = qStride / slabs;
  size_t rank = shape.size(), crank = cd.size();
  int64_t nodes = (std::max(P, Q) + perNode - 1) / perNode;

  // Reused per thread: per producer part, the elements all consumer
  // ranges of its dim read of it and how many ranges touch it; per dim
  // and consumer value, how many parts its range overlaps; per task, what
  // stays on its device, what it moves in all and within its node, its
  // messages; per node, its totals; the node boxes where the grid has none
  // for this node size.
  struct Scratch {
    std::vector<int64_t> rangeOffset;
    std::vector<double> partReads, partReaders, rangeParts, self, local, volume,
        all, msgsIn, msgsOut, in, out, intraIn, intraOut, nodeIn, nodeIntraIn,
        nodeMostIn, nodeOut, nodeIntraOut, nodeMostOut, rowSum, ones;
    std::vector<const double *> factors;
    NodeBoxes nodeBoxes;
  };
  thread_local Scratch sc;
  sc.partReads.assign(partOffset[rank], 0);
  sc.partReaders.assign(partOffset[rank], 0);
  sc.rangeOffset.assign(1, 0);
  sc.rangeParts.clear();
  for (size_t d = 0; d < rank; ++d) {
    // The ranges rise (block parts with halos), so the first part a range
    // overlaps moves forward from the last one's: no division but where a
    // range falls back (a layer that reads in reverse).
    const Range *parts = grid.parts.data() + partOffset[d];
    int64_t first = 0;
    for (const Range &r : ranges[d]) {
      if (r.empty()) {
        sc.rangeParts.push_back(0);
        continue;
      }
      if (parts[first].lo > r.lo)
        first = blockPartOf(shape[d], pd[d], r.lo);
      while (parts[first].hi <= r.lo)
        ++first;
      int64_t i = first;
      for (; i < pd[d] && parts[i].lo < r.hi; ++i) {
        sc.partReads[partOffset[d] + i] +=
            double(intersect(parts[i], r).size());
        ++sc.partReaders[partOffset[d] + i];
      }
      sc.rangeParts.push_back(double(i - first));
    }
    sc.rangeOffset.push_back(sc.rangeParts.size());
  }
  double repeat = 1; // consumer coordinates no dim follows repeat reads
  for (size_t j = 0; j < crank; ++j)
    if (std::find(tiles.coordOf.begin(), tiles.coordOf.end(), int(j)) ==
        tiles.coordOf.end())
      repeat *= double(cd[j]);

  // The node boxes, from the grid where it has them for this node size.
  const NodeBoxes *nodeBoxes = &grid.nodeBoxes;
  if (grid.nodeBoxes.nodeSize != perNode) {
    sc.nodeBoxes = producerNodeBoxes(grid, perNode);
    nodeBoxes = &sc.nodeBoxes;
  }
  int64_t boxSlots = nodeBoxes->slots, boxDevices = nodeBoxes->devices;
  const double *boxLo = nodeBoxes->lo.data(), *boxHi = nodeBoxes->hi.data();

  // What each device keeps: its producer tile's part of its consumer box;
  // what each consumer task's node's producers hold of its box.
  int64_t devices = std::max(P, Q), both = std::min(P, Q);
  sc.volume.resize(devices);
  sc.self.assign(devices, 0.0);
  addOverlapVolumes(rank, both, grid.tileLo.data(), grid.tileHi.data(),
                    pStride, tiles.boxLo.data(), tiles.boxHi.data(), qStride,
                    sc.volume.data(), sc.self.data());
  sc.local.assign(Q, 0.0);
  for (int64_t k = 0; k < boxSlots; ++k)
    addOverlapVolumes(rank, std::min(Q, boxDevices),
                      boxLo + k * rank * boxDevices,
                      boxHi + k * rank * boxDevices, boxDevices,
                      tiles.boxLo.data(), tiles.boxHi.data(), qStride,
                      sc.volume.data(), sc.local.data());

  // Consumer side: a task receives its box less what it keeps, in as many
  // messages as the product of the overlapping part counts, less itself.
  for (auto *v : {&sc.msgsIn, &sc.in, &sc.intraIn})
    v->resize(Q);
  for (auto *v : {&sc.nodeIn, &sc.nodeIntraIn, &sc.nodeMostIn, &sc.nodeOut,
                  &sc.nodeIntraOut, &sc.nodeMostOut})
    v->assign(nodes, 0.0);
  // Per consumer grid dim, the range counts of the operand dim that
  // follows it (ones where none does; constant dims scale).
  double constant = 1;
  sc.factors.assign(crank, nullptr);
  int64_t widest = 1;
  for (int64_t degree : cd)
    widest = std::max(widest, degree);
  sc.ones.assign(widest, 1.0);
  for (size_t d = 0; d < rank; ++d) {
    const double *parts = sc.rangeParts.data() + sc.rangeOffset[d];
    if (tiles.coordOf[d] < 0)
      constant *= parts[0];
    else
      sc.factors[tiles.coordOf[d]] = parts;
  }
  for (const double *&f : sc.factors)
    f = f ? f : sc.ones.data();
  gridProducts(cd, sc.factors, Q, constant, sc.msgsIn.data());
  SideTotals in = sideLoads(Q, perNode, tiles.volumes.data(), sc.self.data(),
                            sc.local.data(), sc.msgsIn.data(), sc.in.data(),
                            sc.intraIn.data(), sc.nodeIn.data(),
                            sc.nodeIntraIn.data(), sc.nodeMostIn.data());
  // Producer side: what each task sends in all and to how many; a node's
  // sends within itself are what its consumers receive within it.
  for (auto *v : {&sc.all, &sc.msgsOut, &sc.out, &sc.intraOut})
    v->resize(P);
  sc.factors.resize(rank);
  for (size_t d = 0; d < rank; ++d)
    sc.factors[d] = sc.partReads.data() + partOffset[d];
  gridProducts(pd, sc.factors, P, repeat, sc.all.data());
  for (size_t d = 0; d < rank; ++d)
    sc.factors[d] = sc.partReaders.data() + partOffset[d];
  gridProducts(pd, sc.factors, P, repeat, sc.msgsOut.data());
  SideTotals out = sideLoads(P, perNode, sc.all.data(), sc.self.data(),
                             sc.self.data(), sc.msgsOut.data(), sc.out.data(),
                             sc.intraOut.data(), sc.nodeOut.data(),
                             sc.nodeIntraOut.data(), sc.nodeMostOut.data());

  TransferPeaks peaks;
  double elements = 0, maxNic = 0, maxPort = in.maxIntra, maxPair = 0;
  for (int64_t node = 0; node < nodes; ++node) {
    elements += sc.nodeIn[node];
    maxNic = std::max({maxNic, sc.nodeIn[node] - sc.nodeIntraIn[node],
                       sc.nodeOut[node] - sc.nodeIntraIn[node]});
  }
  peaks.elements = int64_t(elements) * slabs;
  peaks.maxMessages = int64_t(std::max(in.maxMsgs, out.maxMsgs));
  bool pairLinksMatter = m.intraNodeGbps < m.deviceGbps;
  const NodeBoxes &consumerBoxes = tiles.nodeBoxes;
  bool merged = !pairLinksMatter && consumerBoxes.nodeSize == perNode;
  if (merged) {
    // Without halos, what a producer task holds of its node's consumer
    // boxes is its tile's overlap with the few merged boxes they form.
    int64_t devices = consumerBoxes.devices;
    sc.rowSum.assign(P, 0.0);
    for (int64_t k = 0; k < consumerBoxes.slots; ++k)
      addOverlapVolumes(rank, std::min(P, devices),
                        consumerBoxes.lo.data() + k * rank * devices,
                        consumerBoxes.hi.data() + k * rank * devices, devices,
                        grid.tileLo.data(), grid.tileHi.data(), pStride,
                        sc.volume.data(), sc.rowSum.data(),
                        tiles.nodeBoxReads.data() + k * devices);
    maxPort =
        std::max(maxPort, sendsWithinNode(P, sc.out.data(), sc.rowSum.data(),
                                          sc.self.data(), sc.intraOut.data()));
  } else {
    sc.rowSum.resize(perNode);
  }
  for (int64_t node = 0; node < nodes && !merged; ++node) {
    int64_t lo = node * perNode;
    int64_t pn = std::max<int64_t>(0, std::min(P, lo + perNode) - lo);
    int64_t qn = std::max<int64_t>(0, std::min(Q, lo + perNode) - lo);
    // A producer sends within its node at most what it sends in all, and
    // at most what the node's consumers receive within it together.
    if (!perDevice && !pairLinksMatter &&
        std::min(sc.nodeMostOut[node], sc.nodeIntraIn[node]) <= maxPort)
      continue;
    maxPair = std::max(
        maxPair, nodeOverlaps(rank, pn, qn, grid.tileLo.data() + lo,
                              grid.tileHi.data() + lo, pStride,
                              tiles.boxLo.data() + lo, tiles.boxHi.data() + lo,
                              qStride, sc.rowSum.data(), sc.volume.data()));
    maxPort = std::max(
        maxPort, sendsWithinNode(pn, sc.out.data() + lo, sc.rowSum.data(),
                                 sc.self.data() + lo, sc.intraOut.data() + lo));
  }
  peaks.maxPortBytes = kBytesPerElement * maxPort;
  peaks.maxNicBytes = kBytesPerElement * maxNic;
  // The busiest pair link only sets the time when it is slower than a
  // device's port.
  if (pairLinksMatter)
    peaks.maxPairBytes = kBytesPerElement * maxPair;
  if (perDevice) {
    TransferLoads &l = *perDevice;
    for (int64_t q = 0; q < Q; ++q) {
      l.msgsIn[q] = int64_t(sc.msgsIn[q]);
      l.devIn[q] = kBytesPerElement * sc.intraIn[q];
    }
    for (int64_t p = 0; p < P; ++p) {
      l.msgsOut[p] = int64_t(sc.msgsOut[p]);
      l.devOut[p] = kBytesPerElement * sc.intraOut[p];
    }
    for (int64_t node = 0; node < nodes; ++node) {
      l.nicIn[node] =
          kBytesPerElement * (sc.nodeIn[node] - sc.nodeIntraIn[node]);
      l.nicOut[node] =
          kBytesPerElement * (sc.nodeOut[node] - sc.nodeIntraIn[node]);
    }
    l.maxPairBytes = peaks.maxPairBytes;
    l.elements = peaks.elements;
  }
  return peaks;
}

} // namespace

ProducerExtents producerExtents(const ProducerGrid &grid,
                                int64_t devicesPerNode) {
  size_t rank = grid.shape.size();
  ProducerExtents e{grid.config.tasks(), std::vector<int64_t>(rank, 0),
                    std::vector<int64_t>(rank, 0)};
  for (size_t d = 0; d < rank; ++d)
    for (int64_t i = grid.partOffset[d]; i < grid.partOffset[d + 1]; ++i)
      e.part[d] = std::max(e.part[d], grid.parts[i].size());
  // A node's tasks are consecutive in row-major order; where they form one
  // sub-box of the grid, what they hold is one box of the tensor.
  std::vector<int64_t> mine(rank);
  for (int64_t lo = 0; lo < e.tasks; lo += devicesPerNode) {
    int boxes = 0;
    forEachSubBox(grid.config.degrees, lo,
                  std::min(e.tasks, lo + devicesPerNode),
                  [&](const Range *box) {
                    ++boxes;
                    for (size_t d = 0; d < rank; ++d)
                      mine[d] =
                          grid.parts[grid.partOffset[d] + box[d].hi - 1].hi -
                          grid.parts[grid.partOffset[d] + box[d].lo].lo;
                  });
    if (boxes != 1)
      return {e.tasks, e.part, grid.shape};
    for (size_t d = 0; d < rank; ++d)
      e.node[d] = std::max(e.node[d], mine[d]);
  }
  return e;
}

ConsumerExtents consumerExtents(const std::vector<TileBox> &boxes) {
  ConsumerExtents e{int64_t(boxes.size()), {}, {}};
  if (boxes.empty())
    return e;
  unsigned rank = boxes.front().rank();
  e.least.assign(rank, INT64_MAX);
  const TileBox *most = &boxes.front();
  for (const TileBox &b : boxes) {
    if (b.volume() > most->volume())
      most = &b;
    for (unsigned d = 0; d < rank; ++d)
      e.least[d] = std::min(e.least[d], b[d].size());
  }
  for (unsigned d = 0; d < rank; ++d)
    e.largest.push_back((*most)[d].size());
  return e;
}

ProducerGrid producerGrid(const std::vector<int64_t> &shape,
                          const ParallelConfig &config,
                          int64_t devicesPerNode) {
  ProducerGrid grid{shape, config, {}, {0}};
  const std::vector<int64_t> &pd = config.degrees;
  size_t rank = shape.size();
  for (size_t d = 0; d < rank; ++d) {
    grid.partOffset.push_back(grid.partOffset.back() + pd[d]);
    for (int64_t i = 0; i < pd[d]; ++i)
      grid.parts.push_back(blockPart(shape[d], pd[d], i));
  }
  int64_t P = config.tasks();
  grid.coords.resize(P * rank);
  grid.tileLo.resize(P * rank);
  grid.tileHi.resize(P * rank);
  forEachTile(shape, pd,
              [&](int64_t p, const int64_t *coord, const TileBox &tile) {
                for (size_t d = 0; d < rank; ++d) {
                  grid.coords[d * P + p] = coord[d];
                  grid.tileLo[d * P + p] = double(tile[d].lo);
                  grid.tileHi[d * P + p] = double(tile[d].hi);
                }
              });
  if (devicesPerNode > 0)
    grid.nodeBoxes = producerNodeBoxes(grid, devicesPerNode);
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
  ConsumerTiles tiles;
  tiles.degrees = config.degrees;
  int64_t Q = config.tasks();
  size_t crank = config.degrees.size();
  std::vector<int64_t> coords; // task q's at [q * crank]
  coords.reserve(Q * crank);
  tiles.boxes.reserve(Q);
  forEachTile(consumer.shape, config.degrees,
              [&](int64_t, const int64_t *coord, const TileBox &tile) {
                coords.insert(coords.end(), coord, coord + crank);
                tiles.boxes.push_back(consumer.inputBox(operand, tile));
                tiles.largestBox =
                    std::max(tiles.largestBox, tiles.boxes.back().volume());
                tiles.totalBoxes += tiles.boxes.back().volume();
              });
  if (tiles.boxes.empty())
    return tiles;
  // Find, per operand dim, the one consumer coordinate its range follows.
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

int64_t identicalSlabs(const ProducerGrid &grid, const ConsumerTiles &tiles,
                       int64_t perNode) {
  int64_t P = grid.config.tasks(), Q = int64_t(tiles.boxes.size());
  const std::vector<int64_t> &pd = grid.config.degrees, &cd = tiles.degrees;
  if (!tiles.separable || P != Q || tiles.coordOf.empty())
    return 1;
  // Dims that neither grid splits leave the row-major task order as it
  // is: the slabs come from the outermost dim that either splits (the
  // batch, or the channels of a layer that splits no batch).
  size_t k = 0;
  while (k < pd.size() && pd[k] == 1 &&
         (tiles.coordOf[k] < 0 || cd[tiles.coordOf[k]] == 1))
    ++k;
  if (k == pd.size() || tiles.coordOf[k] < 0)
    return 1;
  int j = tiles.coordOf[k];
  if (std::any_of(cd.begin(), cd.begin() + j, [](int64_t d) { return d > 1; }))
    return 1;
  int64_t size = grid.shape[k], pn = pd[k], qn = cd[j];
  if (size % pn != 0 || size % qn != 0 ||
      int64_t(tiles.ranges[k].size()) != qn)
    return 1;
  for (int64_t v = 0; v < qn; ++v)
    if (tiles.ranges[k][v] != blockPart(size, qn, v))
      return 1;
  int64_t slabs = std::gcd(pn, qn);
  while (slabs > 1 && (pn % slabs != 0 || qn % slabs != 0 ||
                       ((P / slabs) % perNode != 0 &&
                        perNode % (P / slabs) != 0)))
    --slabs;
  return slabs;
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
  if (allowSeparable && tiles.separable) {
    separablePeaks(machine, producer, tiles, &loads);
    return;
  }
  visitFlows(producer.shape, producer.config, tiles.boxes,
             [&](const Flow &f) { addFlow(machine, f, loads); });
}

TransferPeaks peaksOf(const TransferLoads &loads) {
  TransferPeaks peaks;
  peaks.maxPairBytes = loads.maxPairBytes;
  peaks.elements = loads.elements;
  for (size_t d = 0; d < loads.devOut.size(); ++d)
    peaks.maxPortBytes =
        std::max({peaks.maxPortBytes, loads.devOut[d], loads.devIn[d]});
  for (size_t n = 0; n < loads.nicOut.size(); ++n)
    peaks.maxNicBytes =
        std::max({peaks.maxNicBytes, loads.nicOut[n], loads.nicIn[n]});
  for (size_t d = 0; d < loads.msgsOut.size(); ++d)
    peaks.maxMessages =
        std::max({peaks.maxMessages, loads.msgsOut[d], loads.msgsIn[d]});
  return peaks;
}

TransferPeaks transferPeaks(const Machine &machine,
                            const ProducerGrid &producer,
                            const ConsumerTiles &tiles,
                            TransferLoads *perDevice) {
  if (!tiles.separable || perDevice) {
    thread_local TransferLoads loads;
    TransferLoads &target = perDevice ? *perDevice : loads;
    transferLoads(machine, producer, tiles, true, target);
    return peaksOf(target);
  }
  return separablePeaks(machine, producer, tiles, nullptr);
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
