//===- Box.h - boxes of dense row-major buffers -----------------*- C++ -*-===//
//
// A task holds each tensor it touches as a dense buffer covering one box of
// the global tensor (its tile, or its input box with halos). Transfers copy
// a region from one such buffer to another; backward adds gradients where
// boxes overlap.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_BOX_H
#define HDRT_BOX_H

#include <cstdint>

namespace hdrt {

struct Box {
  int rank = 0;
  int64_t lo[4] = {0, 0, 0, 0};
  int64_t hi[4] = {0, 0, 0, 0};

  int64_t volume() const {
    int64_t v = 1;
    for (int d = 0; d < rank; ++d)
      v *= hi[d] > lo[d] ? hi[d] - lo[d] : 0;
    return v;
  }
  /// Whether `inner` lies inside this box.
  bool contains(const Box &inner) const {
    for (int d = 0; d < rank; ++d)
      if (inner.lo[d] < lo[d] || inner.hi[d] > hi[d])
        return false;
    return true;
  }
};

/// The part two boxes of the same rank share (empty: volume 0).
Box intersect(const Box &a, const Box &b);

/// Whether two boxes cover the same elements of a tensor.
bool sameBox(const Box &a, const Box &b);

/// The elements of image box `b` (N x C x H x W, its channel bounds
/// multiples of `block`) in a buffer of the nChw<block>c layout, seen as
/// the row-major N x C/block x H x W*block tensor it is: copyRegion and
/// addRegion then move blocked tiles as they move NCHW ones.
Box channelBlocked(const Box &b, int64_t block);

/// Copies `region` from `src` (a dense buffer of `srcBox`) into `dst` (of
/// `dstBox`), or into a packed buffer of just the region when dstBox is
/// the region itself. Both boxes must contain the region.
void copyRegion(const float *src, const Box &srcBox, float *dst,
                const Box &dstBox, const Box &region);

/// Adds `region` of `src` into `dst`: the backward of copyRegion, summing
/// where boxes overlap.
void addRegion(const float *src, const Box &srcBox, float *dst,
               const Box &dstBox, const Box &region);

} // namespace hdrt

#endif // HDRT_BOX_H
