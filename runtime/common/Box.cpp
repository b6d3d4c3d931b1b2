//===- Box.cpp - boxes of dense row-major buffers -------------------------===//

#include "hdrt/Box.h"
#include "hdrt/common/Parallel.h"

#include <algorithm>

namespace hdrt {

Box intersect(const Box &a, const Box &b) {
  Box r;
  r.rank = a.rank;
  for (int d = 0; d < a.rank; ++d) {
    r.lo[d] = std::max(a.lo[d], b.lo[d]);
    r.hi[d] = std::max(r.lo[d], std::min(a.hi[d], b.hi[d]));
  }
  return r;
}

bool sameBox(const Box &a, const Box &b) {
  if (a.rank != b.rank)
    return false;
  for (int d = 0; d < a.rank; ++d)
    if (a.lo[d] != b.lo[d] || a.hi[d] != b.hi[d])
      return false;
  return true;
}

namespace {

/// Calls f(srcOffset, dstOffset, length) for each contiguous run of the
/// region (its innermost dim) in both buffers; runs go to the kernel
/// threads, each to one.
template <typename F>
void forEachRun(const Box &srcBox, const Box &dstBox, const Box &region, F f) {
  int rank = region.rank;
  int64_t volume = region.volume();
  if (volume == 0)
    return;
  int64_t run = region.hi[rank - 1] - region.lo[rank - 1];
  parallelFor(volume / run, volume, [&](int64_t r) {
    // The run's coordinates in the outer dims, row-major.
    int64_t idx[4];
    idx[rank - 1] = region.lo[rank - 1];
    for (int d = rank - 2; d >= 0; --d) {
      int64_t extent = region.hi[d] - region.lo[d];
      idx[d] = region.lo[d] + r % extent;
      r /= extent;
    }
    int64_t s = 0, t = 0;
    for (int d = 0; d < rank; ++d) {
      s = s * (srcBox.hi[d] - srcBox.lo[d]) + (idx[d] - srcBox.lo[d]);
      t = t * (dstBox.hi[d] - dstBox.lo[d]) + (idx[d] - dstBox.lo[d]);
    }
    f(s, t, run);
  });
}

} // namespace

void copyRegion(const float *src, const Box &srcBox, float *dst,
                const Box &dstBox, const Box &region) {
  forEachRun(srcBox, dstBox, region, [&](int64_t s, int64_t t, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      dst[t + i] = src[s + i];
  });
}

void addRegion(const float *src, const Box &srcBox, float *dst,
               const Box &dstBox, const Box &region) {
  forEachRun(srcBox, dstBox, region, [&](int64_t s, int64_t t, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      dst[t + i] += src[s + i];
  });
}

} // namespace hdrt
