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

Box channelBlocked(const Box &b, int64_t block) {
  Box view = b;
  view.lo[1] = b.lo[1] / block;
  view.hi[1] = b.hi[1] / block;
  view.lo[3] = b.lo[3] * block;
  view.hi[3] = b.hi[3] * block;
  return view;
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
/// region (its innermost dim) in both buffers. The runs go to the kernel
/// threads in chunks of about kChunk elements; within a chunk the offsets
/// step by the buffers' strides: runs can be a few elements long (a
/// w-split's rows), where dividing out every run's coordinates cost more
/// than copying it.
template <typename F>
void forEachRun(const Box &srcBox, const Box &dstBox, const Box &region, F f) {
  constexpr int64_t kChunk = int64_t(1) << 14;
  int rank = region.rank;
  int64_t volume = region.volume();
  if (volume == 0)
    return;
  int64_t run = region.hi[rank - 1] - region.lo[rank - 1];
  int64_t srcStride[4], dstStride[4], extent[4];
  srcStride[rank - 1] = dstStride[rank - 1] = 1;
  for (int d = rank - 2; d >= 0; --d) {
    srcStride[d] = srcStride[d + 1] * (srcBox.hi[d + 1] - srcBox.lo[d + 1]);
    dstStride[d] = dstStride[d + 1] * (dstBox.hi[d + 1] - dstBox.lo[d + 1]);
  }
  for (int d = 0; d < rank; ++d)
    extent[d] = region.hi[d] - region.lo[d];
  int64_t runs = volume / run;
  int64_t runsPerChunk = std::max<int64_t>(1, kChunk / run);
  int64_t chunks = (runs + runsPerChunk - 1) / runsPerChunk;
  parallelFor(chunks, volume, [&](int64_t c) {
    int64_t first = c * runsPerChunk;
    int64_t last = std::min(runs, first + runsPerChunk);
    // The first run's coordinates in the outer dims, relative to the
    // region, row-major; then each next run by a carry.
    int64_t idx[4] = {0, 0, 0, 0};
    for (int64_t r = first, d = rank - 2; d >= 0; --d) {
      idx[d] = r % extent[d];
      r /= extent[d];
    }
    int64_t s = 0, t = 0;
    for (int d = 0; d < rank; ++d) {
      s += (region.lo[d] + (d < rank - 1 ? idx[d] : 0) - srcBox.lo[d]) *
           srcStride[d];
      t += (region.lo[d] + (d < rank - 1 ? idx[d] : 0) - dstBox.lo[d]) *
           dstStride[d];
    }
    for (int64_t r = first; r < last; ++r) {
      f(s, t, run);
      for (int d = rank - 2; d >= 0; --d) {
        s += srcStride[d];
        t += dstStride[d];
        if (++idx[d] < extent[d])
          break;
        s -= extent[d] * srcStride[d];
        t -= extent[d] * dstStride[d];
        idx[d] = 0;
      }
    }
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
