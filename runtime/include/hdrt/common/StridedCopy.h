//===- StridedCopy.h - a region copy as rows of contiguous runs -*- C++ -*-===//
//
// Most region copies between dense boxes are a few long contiguous runs at
// a fixed stride: a concatenation's operand is, per sample, one run of its
// channels; a sample slice is one run. A GPU copies those fastest as a
// strided 2-D copy (cudaMemcpy2DAsync) rather than through a kernel that
// computes each element's place with 64-bit divisions. This finds the
// pattern, or says there is none.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_COMMON_STRIDEDCOPY_H
#define HDRT_COMMON_STRIDEDCOPY_H

#include "hdrt/Box.h"

#include <cstdint>
#include <optional>

namespace hdrt {

/// `rows` runs of `run` contiguous elements: run i starts at
/// srcOffset + i * srcStride in the source and dstOffset + i * dstStride
/// in the destination (offsets in elements of the dense boxes).
struct StridedCopy {
  int64_t srcOffset = 0, dstOffset = 0;
  int64_t run = 0, rows = 0;
  int64_t srcStride = 0, dstStride = 0;
};

/// `region` of a dense buffer of `srcBox` into one of `dstBox` (both
/// containing it, of the same rank) as one strided copy, in the region's
/// row-major order; nullopt when the region's elements do not lie that way
/// in both buffers, or the region is empty.
std::optional<StridedCopy> stridedCopyOf(const Box &srcBox, const Box &dstBox,
                                         const Box &region);

} // namespace hdrt

#endif // HDRT_COMMON_STRIDEDCOPY_H
