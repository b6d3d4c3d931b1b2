//===- SeparablePeaks.cpp - peaks from the separable form -----------------===//
//
// Where each dimension of a consumer task's box follows one coordinate of
// the task, what a task sends or receives is a product of per-dimension
// sums, and what stays within a node an overlap with a few merged boxes:
// vector passes over the tasks instead of a loop over every overlapping
// pair. The passes run over one slab of tasks where the transfer repeats
// itself slab by slab (identicalSlabs).
//
//===----------------------------------------------------------------------===//

#include "SeparablePeaks.h"

#include "hd/Support/VectorClones.h"

#include <algorithm>

namespace hd {

/// out[t] += the volume of the intersection of boxes a and b of task t,
/// times weight[t] where given, for t in [0, n); dim d of box x at
/// x[d * stride + t].
HD_VECTOR_CLONES
static void addOverlapVolumes(size_t rank, int64_t n,
                              const double *__restrict aLo,
                              const double *__restrict aHi, int64_t aStride,
                              const double *__restrict bLo,
                              const double *__restrict bHi, int64_t bStride,
                              double *__restrict volume, double *__restrict out,
                              const double *__restrict weight = nullptr) {
  for (int64_t t = 0; t < n; ++t)
    volume[t] = weight ? weight[t] : 1.0;
  for (size_t d = 0; d < rank; ++d) {
    const double *__restrict al = aLo + d * aStride, *__restrict ah =
                                                         aHi + d * aStride;
    const double *__restrict bl = bLo + d * bStride, *__restrict bh =
                                                         bHi + d * bStride;
    for (int64_t t = 0; t < n; ++t)
      volume[t] *=
          std::max(std::min(ah[t], bh[t]) - std::max(al[t], bl[t]), 0.0);
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
namespace {
struct SideTotals {
  double maxIntra = 0, maxMsgs = 0;
};
} // namespace
HD_VECTOR_CLONES
static SideTotals
sideLoads(int64_t n, int64_t perNode, const double *__restrict total,
          const double *__restrict self, const double *__restrict local,
          double *__restrict msgs, double *__restrict moved,
          double *__restrict intra, double *__restrict nodeMoved,
          double *__restrict nodeIntra, double *__restrict nodeMostMoved) {
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

/// The separable form, as vector passes over the tasks.
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
  addOverlapVolumes(rank, both, grid.tileLo.data(), grid.tileHi.data(), pStride,
                    tiles.boxLo.data(), tiles.boxHi.data(), qStride,
                    sc.volume.data(), sc.self.data());
  sc.local.assign(Q, 0.0);
  for (int64_t k = 0; k < boxSlots; ++k)
    addOverlapVolumes(
        rank, std::min(Q, boxDevices), boxLo + k * rank * boxDevices,
        boxHi + k * rank * boxDevices, boxDevices, tiles.boxLo.data(),
        tiles.boxHi.data(), qStride, sc.volume.data(), sc.local.data());

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
  peaks.maxPortBytes = grid.elementBytes * maxPort;
  peaks.maxNicBytes = grid.elementBytes * maxNic;
  // The busiest pair link only sets the time when it is slower than a
  // device's port.
  if (pairLinksMatter)
    peaks.maxPairBytes = grid.elementBytes * maxPair;
  if (perDevice) {
    TransferLoads &l = *perDevice;
    for (int64_t q = 0; q < Q; ++q) {
      l.msgsIn[q] = int64_t(sc.msgsIn[q]);
      l.devIn[q] = grid.elementBytes * sc.intraIn[q];
    }
    for (int64_t p = 0; p < P; ++p) {
      l.msgsOut[p] = int64_t(sc.msgsOut[p]);
      l.devOut[p] = grid.elementBytes * sc.intraOut[p];
    }
    for (int64_t node = 0; node < nodes; ++node) {
      l.nicIn[node] =
          grid.elementBytes * (sc.nodeIn[node] - sc.nodeIntraIn[node]);
      l.nicOut[node] =
          grid.elementBytes * (sc.nodeOut[node] - sc.nodeIntraIn[node]);
    }
    l.maxPairBytes = peaks.maxPairBytes;
    l.elements = peaks.elements;
  }
  return peaks;
}

} // namespace hd
