//===- BoxTest.cpp - region copies and adds against direct enumeration ----===//
//
// copyRegion and addRegion walk a region run by run, stepping offsets by the
// buffers' strides. The oracle visits every element of the region by its
// coordinates and computes both offsets from their definition (row-major in
// each buffer's box).
//
//===----------------------------------------------------------------------===//

#include "hdrt/Box.h"

#include "BlockedLayout.h"

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

// A blocked tile's boxes through channelBlocked: every element of a region
// (channels in whole blocks) lands at the nChw<B>c offset of its
// coordinates in the destination box, and adds come back the same way.
TEST(Box, ChannelBlockedViewsMoveBlockedTiles) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 100; ++trial) {
    const int64_t B = trial % 2 ? 16 : 8;
    Box src, region;
    src.rank = region.rank = 4;
    const int64_t extents[] = {3, 4 * B, 9, 11};
    for (int d = 0; d < 4; ++d) {
      int64_t step = d == 1 ? B : 1, units = extents[d] / step;
      int64_t a = std::uniform_int_distribution<int64_t>(0, units - 1)(rng);
      int64_t b = std::uniform_int_distribution<int64_t>(a + 1, units)(rng);
      src.lo[d] = 0;
      src.hi[d] = extents[d];
      region.lo[d] = a * step;
      region.hi[d] = b * step;
    }
    src.lo[1] = B; // a tile that does not start at channel 0
    src.hi[1] += B;
    region.lo[1] += B;
    region.hi[1] += B;
    auto extent = [](const Box &b, int d) { return b.hi[d] - b.lo[d]; };
    auto offset = [&](const Box &b, const int64_t *at) {
      int64_t hw = extent(b, 2) * extent(b, 3);
      int64_t i = (at[2] - b.lo[2]) * extent(b, 3) + (at[3] - b.lo[3]);
      return blockedOffset(at[0] - b.lo[0], at[1] - b.lo[1], i, extent(b, 1),
                           hw, B);
    };
    std::vector<float> tile(size_t(src.volume()));
    for (size_t i = 0; i < tile.size(); ++i)
      tile[i] = float(i);
    std::vector<float> box(size_t(region.volume()), -1);
    copyRegion(tile.data(), channelBlocked(src, B), box.data(),
               channelBlocked(region, B), channelBlocked(region, B));
    std::vector<float> back(tile.size(), 0);
    addRegion(box.data(), channelBlocked(region, B), back.data(),
              channelBlocked(src, B), channelBlocked(region, B));
    forEachElement(region, [&](const int64_t *at) {
      float want = tile[size_t(offset(src, at))];
      EXPECT_EQ(box[size_t(offset(region, at))], want);
      EXPECT_EQ(back[size_t(offset(src, at))], want);
    });
    double total = 0, moved = 0;
    for (float v : back)
      total += v;
    forEachElement(region,
                   [&](const int64_t *at) { moved += tile[offset(src, at)]; });
    EXPECT_EQ(total, moved) << "adds outside the region";
  }
}
