//===- BoxTest.cpp - region copies and adds against direct enumeration ----===//
//
// copyRegion and addRegion walk a region run by run, stepping offsets by the
// buffers' strides. The oracle visits every element of the region by its
// coordinates and computes both offsets from their definition (row-major in
// each buffer's box).
//
//===----------------------------------------------------------------------===//

#include "hdrt/Box.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using namespace hdrt;

namespace {

/// The row-major offset of global coordinates `at` in a buffer of box `b`.
int64_t offsetIn(const Box &b, const int64_t *at) {
  int64_t o = 0;
  for (int d = 0; d < b.rank; ++d)
    o = o * (b.hi[d] - b.lo[d]) + (at[d] - b.lo[d]);
  return o;
}

/// Calls f(coordinates) for every element of `region`.
template <typename F> void forEachElement(const Box &region, F f) {
  int64_t at[4];
  for (int d = 0; d < region.rank; ++d)
    at[d] = region.lo[d];
  for (int64_t i = 0, v = region.volume(); i < v; ++i) {
    f(at);
    for (int d = region.rank - 1; d >= 0; --d) {
      if (++at[d] < region.hi[d])
        break;
      at[d] = region.lo[d];
    }
  }
}

} // namespace

// Regions of every rank, with runs from one element to whole rows, inside
// source and destination boxes that extend past them by random margins;
// large ones so that chunks of runs start anywhere in the outer dims.
TEST(Box, CopyAndAddRegionMatchEnumeration) {
  std::mt19937 rng(3);
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Box region, src, dst;
    region.rank = src.rank = dst.rank = 1 + trial % 4;
    // Every seventh trial (of every rank) is large: tens of thousands of
    // elements in rows of at most 9, several chunks of runs.
    bool large = trial % 7 == 0 && region.rank > 1;
    const int64_t outer[] = {0, 0, 8000, 120, 35};
    for (int d = 0; d < region.rank; ++d) {
      int64_t maxExtent =
          !large ? 6 : d == region.rank - 1 ? 9 : outer[region.rank];
      region.lo[d] = std::uniform_int_distribution<int64_t>(-3, 5)(rng);
      region.hi[d] = region.lo[d] +
                     std::uniform_int_distribution<int64_t>(1, maxExtent)(rng);
      auto margin = [&] {
        return std::uniform_int_distribution<int64_t>(0, 3)(rng);
      };
      src.lo[d] = region.lo[d] - margin();
      src.hi[d] = region.hi[d] + margin();
      dst.lo[d] = region.lo[d] - margin();
      dst.hi[d] = region.hi[d] + margin();
    }
    std::vector<float> from(size_t(src.volume())), to(size_t(dst.volume()));
    for (size_t i = 0; i < from.size(); ++i)
      from[i] = float(i % 1000) + 0.5f;
    for (size_t i = 0; i < to.size(); ++i)
      to[i] = -float(i % 777);
    std::vector<float> copied = to, added = to, wantCopied = to,
                       wantAdded = to;
    copyRegion(from.data(), src, copied.data(), dst, region);
    addRegion(from.data(), src, added.data(), dst, region);
    forEachElement(region, [&](const int64_t *at) {
      wantCopied[offsetIn(dst, at)] = from[offsetIn(src, at)];
      wantAdded[offsetIn(dst, at)] += from[offsetIn(src, at)];
    });
    ASSERT_EQ(copied, wantCopied) << "trial " << trial;
    ASSERT_EQ(added, wantAdded) << "trial " << trial;
    ++checked;
  }
  EXPECT_EQ(checked, 300);
}
