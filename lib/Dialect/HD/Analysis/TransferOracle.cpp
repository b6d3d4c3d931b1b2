//===- TransferOracle.cpp - a transfer plan checked element by element ----===//
//
// Deliberately plain: block parts by their closed form, boxes as vectors,
// every element visited. Nothing here calls Tiling's grids or plans.
//
//===----------------------------------------------------------------------===//

#include "hd/Dialect/HD/Analysis/TransferOracle.h"

#include <sstream>

namespace hd {
namespace {

/// Part k of n split d ways: the first n % d parts have one more.
std::pair<int64_t, int64_t> partBounds(int64_t n, int64_t d, int64_t k) {
  int64_t base = n / d, rem = n % d;
  int64_t lo = k * base + std::min(k, rem);
  return {lo, lo + base + (k < rem ? 1 : 0)};
}

/// The part of n split d ways that holds index i.
int64_t partOf(int64_t n, int64_t d, int64_t i) {
  int64_t base = n / d, rem = n % d, big = base + 1;
  return i < rem * big ? i / big : rem + (i - rem * big) / base;
}

/// Task t's tile, tasks numbered row-major over the degrees.
std::vector<std::pair<int64_t, int64_t>>
tileOf(const std::vector<int64_t> &shape, const std::vector<int64_t> &degrees,
       int64_t t) {
  std::vector<std::pair<int64_t, int64_t>> tile(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    tile[d] = partBounds(shape[d], degrees[d], t % degrees[d]);
    t /= degrees[d];
  }
  return tile;
}

int64_t ownerOf(const std::vector<int64_t> &shape,
                const std::vector<int64_t> &degrees,
                const std::vector<int64_t> &element) {
  int64_t task = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    task = task * degrees[d] + partOf(shape[d], degrees[d], element[d]);
  return task;
}

int64_t tasksOf(const std::vector<int64_t> &degrees) {
  int64_t n = 1;
  for (int64_t d : degrees)
    n *= d;
  return n;
}

std::string str(const std::vector<int64_t> &v) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < v.size(); ++i)
    os << (i ? ", " : "") << v[i];
  os << ")";
  return os.str();
}

/// Calls f(row) on every row of [lo, hi) along the last dimension, in
/// row-major order: `row` holds the row's first element. Stops at the
/// first row for which f returns false.
template <typename F>
void forEachRow(const std::vector<int64_t> &lo, const std::vector<int64_t> &hi,
                F f) {
  for (size_t d = 0; d < lo.size(); ++d)
    if (lo[d] >= hi[d])
      return;
  std::vector<int64_t> row = lo;
  while (f(row)) {
    size_t d = row.size() - 1;
    while (d-- > 0) {
      if (++row[d] < hi[d])
        break;
      row[d] = lo[d];
    }
    if (d == size_t(-1))
      return;
  }
}

} // namespace

std::optional<std::string>
checkPlanByEnumeration(const OracleEdge &edge,
                       const std::vector<OracleMove> *moves,
                       int64_t maxElements) {
  const auto &pShape = edge.producerShape, &pDeg = edge.producerDegrees;
  int64_t producers = tasksOf(pDeg), consumers = tasksOf(edge.consumerDegrees);
  size_t rank = pShape.size();
  // Each consumer task's input box, and its volume.
  std::vector<std::vector<int64_t>> boxLo(consumers), boxHi(consumers);
  int64_t total = 0;
  for (int64_t q = 0; q < consumers; ++q) {
    auto tile = tileOf(edge.consumerShape, edge.consumerDegrees, q);
    std::vector<Range> ranges;
    for (auto [lo, hi] : tile)
      ranges.push_back({lo, hi});
    TileBox box = edge.inputBox(TileBox(ranges));
    int64_t volume = 1;
    for (size_t d = 0; d < rank; ++d) {
      boxLo[q].push_back(box[d].lo);
      boxHi[q].push_back(box[d].hi);
      volume *= std::max<int64_t>(0, box[d].hi - box[d].lo);
    }
    total += volume;
  }
  if (total > maxElements)
    return std::nullopt;

  if (!moves) {
    // Read in place: each task's box is exactly its own device's tile.
    for (int64_t q = 0; q < consumers; ++q) {
      auto own = tileOf(pShape, pDeg, q);
      bool same = q < producers;
      for (size_t d = 0; same && d < rank; ++d)
        same = boxLo[q][d] == own[d].first && boxHi[q][d] == own[d].second;
      if (!same)
        return "task " + std::to_string(q) + " reads " + str(boxLo[q]) +
               " to " + str(boxHi[q]) +
               ", which is not its own device's tile, and no transfer "
               "brings it";
    }
    return std::nullopt;
  }

  // How many times each element of each box arrives.
  std::vector<std::vector<int>> arrivals(consumers);
  auto indexIn = [&](int64_t q, const std::vector<int64_t> &e) {
    int64_t i = 0;
    for (size_t d = 0; d < rank; ++d)
      i = i * (boxHi[q][d] - boxLo[q][d]) + (e[d] - boxLo[q][d]);
    return i;
  };
  for (int64_t q = 0; q < consumers; ++q) {
    int64_t volume = 1;
    for (size_t d = 0; d < rank; ++d)
      volume *= std::max<int64_t>(0, boxHi[q][d] - boxLo[q][d]);
    arrivals[q].assign(size_t(volume), 0);
  }
  for (const OracleMove &m : *moves) {
    std::string which = "the move from device " + std::to_string(m.src) +
                        " to " + std::to_string(m.dst) + " of " + str(m.lo) +
                        " to " + str(m.hi);
    if (m.src < 0 || m.src >= producers || m.dst < 0 || m.dst >= consumers ||
        m.src == m.dst || m.lo.size() != rank || m.hi.size() != rank)
      return which + " names devices or a box the edge does not have";
    for (size_t d = 0; d < rank; ++d)
      if (m.lo[d] < boxLo[m.dst][d] || m.hi[d] > boxHi[m.dst][d])
        return which + " leaves task " + std::to_string(m.dst) + "'s input box";
    std::optional<std::string> wrong;
    forEachRow(m.lo, m.hi, [&](std::vector<int64_t> &e) {
      int64_t owners = ownerOf(pShape, pDeg, e) / pDeg.back();
      int64_t at = indexIn(m.dst, e) - e.back();
      int *counts = arrivals[m.dst].data();
      for (int64_t x = m.lo.back(); x < m.hi.back(); ++x) {
        int64_t owner =
            owners * pDeg.back() + partOf(pShape.back(), pDeg.back(), x);
        if (owner != m.src) {
          e.back() = x;
          wrong = which + " sends element " + str(e) + ", which device " +
                  std::to_string(owner) + " holds";
          return false;
        }
        ++counts[at + x];
      }
      return true;
    });
    if (wrong)
      return wrong;
  }
  for (int64_t q = 0; q < consumers; ++q) {
    std::optional<std::string> wrong;
    forEachRow(boxLo[q], boxHi[q], [&](std::vector<int64_t> &e) {
      int64_t owners = ownerOf(pShape, pDeg, e) / pDeg.back();
      int64_t at = indexIn(q, e) - e.back();
      const int *counts = arrivals[q].data();
      for (int64_t x = boxLo[q].back(); x < boxHi[q].back(); ++x) {
        int64_t owner =
            owners * pDeg.back() + partOf(pShape.back(), pDeg.back(), x);
        int expected = owner == q ? 0 : 1;
        int got = counts[at + x];
        if (got != expected) {
          e.back() = x;
          wrong = "element " + str(e) + " of task " + std::to_string(q) +
                  "'s input box arrives " + std::to_string(got) +
                  " times, not " + std::to_string(expected) +
                  (expected ? "" : " (its own device holds it)");
          return false;
        }
      }
      return true;
    });
    if (wrong)
      return wrong;
  }
  return std::nullopt;
}

} // namespace hd
