//===- Geometry.h - the shapes of kernel calls -----------------*- C++ -*-===//
//
// What a layer kernel is told about the tile it runs on: the window of a
// convolution or pooling over its input box (per-side padding, since a halo
// replaces padding inside the image), the layouts of its tiles, and a
// tile's place in its tensor. The CPU and CUDA kernels take the same
// structs; a window kind's call shape (its window and layouts) is in its
// kernels' header.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_COMMON_GEOMETRY_H
#define HDRT_COMMON_GEOMETRY_H

#include <cstdint>

namespace hdrt {

/// A 2-D window over an NCHW input box.
struct Window2d {
  int64_t n = 1, c = 1, h = 1, w = 1; // input box
  int64_t kh = 1, kw = 1;
  int64_t strideH = 1, strideW = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  int64_t dilationH = 1, dilationW = 1;

  int64_t outH() const {
    return (h + padTop + padBottom - ((kh - 1) * dilationH + 1)) / strideH + 1;
  }
  int64_t outW() const {
    return (w + padLeft + padRight - ((kw - 1) * dilationW + 1)) / strideW + 1;
  }
};

/// The layouts of a kernel's input and output tiles (and their
/// gradients), by channel block: 1 for NCHW, B for nChw<B>c
/// (Device::channelBlock).
struct TileLayouts {
  int64_t in = 1, out = 1;
};

/// A tile of a row-major tensor: its global shape and its box [lo, hi).
struct TileRegion {
  int64_t rank = 0;
  int64_t shape[4] = {1, 1, 1, 1};
  int64_t lo[4] = {0, 0, 0, 0};
  int64_t hi[4] = {1, 1, 1, 1};

  int64_t volume() const {
    int64_t v = 1;
    for (int64_t d = 0; d < rank; ++d)
      v *= hi[d] - lo[d];
    return v;
  }
};

} // namespace hdrt

#endif // HDRT_COMMON_GEOMETRY_H
