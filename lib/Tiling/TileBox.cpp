//===- TileBox.cpp - boxes of tensors and block partitions ----------------===//

#include "hd/Tiling/TileBox.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace hd {

TileBox::TileBox(std::vector<Range> ranges) : rank_(ranges.size()) {
  // A programming error, not bad input (verifiers bound ranks): stop rather
  // than write past the array, also in release builds.
  if (ranges.size() > kMaxRank) {
    std::fprintf(stderr, "hd: TileBox of rank %zu exceeds %u\n",
                 ranges.size(), kMaxRank);
    std::abort();
  }
  std::copy(ranges.begin(), ranges.end(), ranges_.begin());
}

TileBox TileBox::whole(const std::vector<int64_t> &shape) {
  std::vector<Range> ranges;
  for (int64_t d : shape)
    ranges.push_back({0, d});
  return TileBox(std::move(ranges));
}

bool TileBox::operator==(const TileBox &o) const {
  if (rank_ != o.rank_)
    return false;
  if (empty() && o.empty())
    return true;
  for (unsigned i = 0; i < rank_; ++i)
    if (ranges_[i] != o.ranges_[i])
      return false;
  return true;
}

std::string TileBox::str() const {
  std::ostringstream os;
  os << "[";
  for (unsigned i = 0; i < rank_; ++i)
    os << (i ? ", " : "") << ranges_[i].lo << ":" << ranges_[i].hi;
  os << "]";
  return os.str();
}

TileBox intersect(const TileBox &a, const TileBox &b) {
  assert(a.rank() == b.rank() && "intersecting boxes of different ranks");
  TileBox r = a;
  for (unsigned i = 0; i < a.rank(); ++i)
    r[i] = intersect(a[i], b[i]);
  return r;
}

int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

TileBox tileOfTask(const std::vector<int64_t> &shape,
                   const std::vector<int64_t> &degrees, int64_t task) {
  assert(shape.size() == degrees.size() && "one degree per dim");
  std::vector<Range> ranges(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    ranges[i] = blockPart(shape[i], degrees[i], task % degrees[i]);
    task /= degrees[i];
  }
  return TileBox(std::move(ranges));
}

TileBox largestTile(const std::vector<int64_t> &shape,
                    const std::vector<int64_t> &degrees) {
  // Part 0 is the largest part along every dim, so task 0 owns it.
  return tileOfTask(shape, degrees, 0);
}

} // namespace hd
