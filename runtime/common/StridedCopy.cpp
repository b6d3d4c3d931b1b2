//===- StridedCopy.cpp - a region copy as rows of contiguous runs ---------===//

#include "hdrt/common/StridedCopy.h"

namespace hdrt {

namespace {

int64_t extent(const Box &b, int d) { return b.hi[d] - b.lo[d]; }

/// The element offset of `at` (a point of the box) in a dense buffer of
/// `box`, and the stride of each dimension.
int64_t offsetIn(const Box &box, const int64_t *at, int64_t *strides) {
  int64_t offset = 0, stride = 1;
  for (int d = box.rank - 1; d >= 0; --d) {
    strides[d] = stride;
    offset += (at[d] - box.lo[d]) * stride;
    stride *= extent(box, d);
  }
  return offset;
}

} // namespace

std::optional<StridedCopy> stridedCopyOf(const Box &srcBox, const Box &dstBox,
                                         const Box &region) {
  int rank = region.rank;
  if (rank < 1 || region.volume() <= 0)
    return std::nullopt;
  // The run: the inner dimensions the region covers whole in both buffers,
  // and the first one it does not (whose part of each row is contiguous).
  auto whole = [&](int d) {
    return extent(region, d) == extent(srcBox, d) &&
           extent(region, d) == extent(dstBox, d);
  };
  int inner = rank - 1;
  int64_t run = extent(region, inner);
  while (inner > 0 && whole(inner)) {
    --inner;
    run *= extent(region, inner);
  }
  // The rows: the outer dimensions. Those the region spans one index of
  // add nothing. The others must step the row index alike in both buffers:
  // between two of them, the inner one is whole in both buffers and every
  // dimension in between has one index in both, so the outer one's stride
  // is the inner one's times the region's extent.
  int64_t rows = 1;
  int rowDim = -1, previous = -1; // the innermost, and the last seen
  for (int d = inner - 1; d >= 0; --d) {
    if (extent(region, d) == 1)
      continue;
    if (previous < 0) {
      rowDim = d;
    } else {
      if (!whole(previous))
        return std::nullopt;
      for (int between = d + 1; between < previous; ++between)
        if (extent(srcBox, between) != 1 || extent(dstBox, between) != 1)
          return std::nullopt;
    }
    previous = d;
    rows *= extent(region, d);
  }
  StridedCopy c;
  int64_t srcStrides[4], dstStrides[4];
  c.srcOffset = offsetIn(srcBox, region.lo, srcStrides);
  c.dstOffset = offsetIn(dstBox, region.lo, dstStrides);
  c.run = run;
  c.rows = rows;
  c.srcStride = rowDim >= 0 ? srcStrides[rowDim] : run;
  c.dstStride = rowDim >= 0 ? dstStrides[rowDim] : run;
  return c;
}

} // namespace hdrt
