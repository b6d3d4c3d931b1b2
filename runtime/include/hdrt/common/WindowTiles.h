//===- WindowTiles.h - window layers' work on one output tile ---*- C++ -*-===//
//
// What one task computes of a window layer (a convolution, a pooling): its
// output tile, the input box it reads (halo included, clipped to the
// image) and the per-side padding its kernel call sees (real padding at
// the image border, none where a halo replaces it). Running every tile and
// adding up gives the whole layer.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_COMMON_WINDOWTILES_H
#define HDRT_COMMON_WINDOWTILES_H

#include "hdrt/Box.h"
#include "hdrt/common/Geometry.h"

namespace hdrt {

struct WindowTile {
  Box in;          // the input box the tile reads
  Window2d window; // the kernel call's window over that box
};

/// The tile of output box `out` (n, c, y, x) of the layer whose window
/// over its whole input is `whole` (the layer's own padding, ceil mode
/// included as extra bottom/right padding). The tile reads input channels
/// [channelLo, channelHi): a pooling tile its own, a convolution tile
/// every channel of the groups its output channels use. A tile whose
/// windows lie entirely in the padding has an empty input box.
WindowTile windowTile(const Window2d &whole, const Box &out, int64_t channelLo,
                      int64_t channelHi);

} // namespace hdrt

#endif // HDRT_COMMON_WINDOWTILES_H
