//===- WindowTiles.h - window layers' work on one output tile ---*- C++ -*-===//
//
// What one task computes of a convolution or pooling layer: its output
// tile, the input box it reads (halo included, clipped to the image) and
// the per-side padding its kernel call sees (real padding at the image
// border, none where a halo replaces it). Running every tile and adding up
// gives the whole layer.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_COMMON_WINDOWTILES_H
#define HDRT_COMMON_WINDOWTILES_H

#include "hdrt/Box.h"
#include "hdrt/common/Geometry.h"

namespace hdrt {

/// A whole convolution layer.
struct Conv2dLayer {
  int64_t n, c, h, w;  // input
  int64_t k;           // output channels
  int64_t kh, kw, strideH, strideW;
  int64_t padTop, padLeft, padBottom, padRight;
  int64_t dilationH, dilationW;
  int64_t groups;

  int64_t outH() const;
  int64_t outW() const;
};

struct ConvTile {
  Box in;            // the input box the tile reads
  Conv2dShape shape; // the kernel call on that box
  int64_t firstOutChannel = 0; // the tile's weights start at this row
};

/// The tile of output box `out` (n, k, y, x). A channel split of a grouped
/// convolution must keep groups whole. A tile whose windows lie entirely in
/// the padding has an empty input box (its output is the bias).
ConvTile convTile(const Conv2dLayer &layer, const Box &out);

/// A whole pooling layer: its window over the whole input (the layer's
/// padding, ceil mode included as extra bottom/right padding).
struct Pool2dLayer {
  Window2d window;
  bool max = true;
  bool countIncludePad = false;
};

struct PoolTile {
  Box in;
  Pool2dShape shape;
};

/// The tile of output box `out` (n, c, y, x).
PoolTile poolTile(const Pool2dLayer &layer, const Box &out);

} // namespace hdrt

#endif // HDRT_COMMON_WINDOWTILES_H
