//===- StridedCopyTest.cpp - region copies as rows of runs ----------------===//
//
// The oracle enumerates the region's elements in row-major order and their
// offsets in both dense buffers: a strided copy must visit exactly those,
// in that order. Random boxes and regions, and the copies the runtime makes
// most (concatenation operands, sample slices, halos), which must be found.
//
//===----------------------------------------------------------------------===//

#include "hdrt/common/StridedCopy.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using namespace hdrt;

namespace {

Box box(std::initializer_list<std::pair<int64_t, int64_t>> dims) {
  Box b;
  for (auto [lo, hi] : dims) {
    b.lo[b.rank] = lo;
    b.hi[b.rank] = hi;
    ++b.rank;
  }
  return b;
}

/// The offsets of the region's elements, in row-major order, in a dense
/// buffer of `buffer`.
std::vector<int64_t> offsets(const Box &buffer, const Box &region) {
  std::vector<int64_t> out;
  int64_t at[4];
  for (int d = 0; d < region.rank; ++d)
    at[d] = region.lo[d];
  for (int64_t i = 0, v = region.volume(); i < v; ++i) {
    int64_t offset = 0;
    for (int d = 0; d < buffer.rank; ++d)
      offset = offset * (buffer.hi[d] - buffer.lo[d]) + (at[d] - buffer.lo[d]);
    out.push_back(offset);
    for (int d = region.rank - 1; d >= 0; --d) {
      if (++at[d] < region.hi[d])
        break;
      at[d] = region.lo[d];
    }
  }
  return out;
}

/// Whether `c` visits exactly the oracle's offsets in both buffers.
void expectVisits(const StridedCopy &c, const Box &src, const Box &dst,
                  const Box &region) {
  std::vector<int64_t> s, d;
  for (int64_t r = 0; r < c.rows; ++r)
    for (int64_t i = 0; i < c.run; ++i) {
      s.push_back(c.srcOffset + r * c.srcStride + i);
      d.push_back(c.dstOffset + r * c.dstStride + i);
    }
  EXPECT_EQ(s, offsets(src, region));
  EXPECT_EQ(d, offsets(dst, region));
}

/// A sub-interval of [lo, hi).
std::pair<int64_t, int64_t> inside(std::mt19937 &rng, int64_t lo, int64_t hi) {
  std::uniform_int_distribution<int64_t> pick(lo, hi - 1);
  int64_t a = pick(rng), b = pick(rng);
  return {std::min(a, b), std::max(a, b) + 1};
}

} // namespace

TEST(StridedCopy, EveryPatternFoundVisitsTheRegion) {
  std::mt19937 rng(5);
  int found = 0, trials = 20000;
  for (int t = 0; t < trials; ++t) {
    int rank = 1 + t % 4;
    Box region, src, dst;
    region.rank = src.rank = dst.rank = rank;
    for (int d = 0; d < rank; ++d) {
      std::uniform_int_distribution<int64_t> size(1, 4), grow(0, 1);
      int64_t lo = 0, hi = size(rng);
      // Boxes as large as the region, or a little larger on either side,
      // often: those are the patterns that merge.
      auto [rlo, rhi] = grow(rng) ? std::pair{lo, hi} : inside(rng, lo, hi);
      region.lo[d] = rlo;
      region.hi[d] = rhi;
      src.lo[d] = lo - (grow(rng) && grow(rng));
      src.hi[d] = hi + (grow(rng) && grow(rng));
      dst.lo[d] = rlo - (grow(rng) && grow(rng));
      dst.hi[d] = rhi + (grow(rng) && grow(rng));
    }
    std::optional<StridedCopy> c = stridedCopyOf(src, dst, region);
    if (!c)
      continue;
    ++found;
    expectVisits(*c, src, dst, region);
  }
  // Most random copies have the pattern: the test checks many.
  EXPECT_GT(found, trials / 4);
}

TEST(StridedCopy, TheRuntimesCommonCopiesAreFound) {
  struct Case {
    Box src, dst, region;
    int64_t rows, run;
  };
  std::vector<Case> cases = {
      // A concatenation's second operand (channels 3..8 of 11): a run of
      // its channels per sample.
      {box({{0, 4}, {3, 8}, {0, 7}, {0, 7}}),
       box({{0, 4}, {0, 11}, {0, 7}, {0, 7}}),
       box({{0, 4}, {3, 8}, {0, 7}, {0, 7}}), 4, 5 * 7 * 7},
      // A sample slice of a tile: one run.
      {box({{0, 8}, {0, 16}, {0, 5}, {0, 5}}),
       box({{2, 6}, {0, 16}, {0, 5}, {0, 5}}),
       box({{2, 6}, {0, 16}, {0, 5}, {0, 5}}), 1, 4 * 16 * 5 * 5},
      // Rows 3..6 of every plane (a height split's halo): one row per
      // (sample, channel) plane, merged.
      {box({{0, 2}, {0, 3}, {0, 9}, {0, 6}}),
       box({{0, 2}, {0, 3}, {3, 6}, {0, 6}}),
       box({{0, 2}, {0, 3}, {3, 6}, {0, 6}}), 6, 3 * 6},
  };
  for (const Case &c : cases) {
    std::optional<StridedCopy> s = stridedCopyOf(c.src, c.dst, c.region);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->rows, c.rows);
    EXPECT_EQ(s->run, c.run);
    expectVisits(*s, c.src, c.dst, c.region);
  }
}

TEST(StridedCopy, ColumnsOfPlanesHaveNoSingleStride) {
  // Columns 1..3 of rows 2..5 of several planes: runs at two strides.
  Box src = box({{0, 2}, {0, 6}, {0, 6}}),
      region = box({{0, 2}, {2, 5}, {1, 3}});
  EXPECT_FALSE(stridedCopyOf(src, src, region).has_value());
}
