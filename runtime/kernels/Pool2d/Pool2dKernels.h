//===- Pool2dKernels.h - max or average pooling on one tile -----*- C++ -*-===//
//
// The window runs over the tile's input box with per-side padding (a halo
// replaces padding inside the image); tiles are NCHW or in the device's
// blocked layout.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_KERNELS_POOL2D_POOL2DKERNELS_H
#define HDRT_KERNELS_POOL2D_POOL2DKERNELS_H

#include "hdrt/Kernels.h"
#include "hdrt/common/Geometry.h"

#include <cstdint>

namespace hdrt {

/// hd.pool2d's reductions; the numbers cross the ABI in the descriptor's
/// `kind` (the compiler checks them against hd's PoolKind).
enum class PoolKind : int64_t { Max = 0, Avg = 1 };
constexpr int64_t kPoolKinds = 2;

struct Pool2dShape {
  Window2d window;
  bool max = true;
  /// Average pooling divides by the whole window, padding included.
  bool countIncludePad = false;
  TileLayouts layouts;
};

class Pool2dKernels : public KernelSet {
public:
  static constexpr const char *kName = "Pool2d";

  /// Bytes of the workspace in which max pooling's forward leaves, for its
  /// backward, where each window's maximum is; 0 where the backward finds
  /// it again (average pooling; a device that searches the window).
  virtual int64_t workspaceBytes(const Pool2dShape &s) = 0;
  /// `workspace` (workspaceBytes of device memory, or null) receives the
  /// maxima's places.
  virtual void forward(const Pool2dShape &s, const float *in, float *out,
                       void *workspace) = 0;
  /// dIn (overwritten) from dOut; max pooling routes each gradient to the
  /// window's first maximum: from the `workspace` the forward of `in`
  /// filled, or, where null, found again in `in`.
  virtual void backward(const Pool2dShape &s, const float *in,
                        const float *dOut, float *dIn,
                        const void *workspace) = 0;
};

} // namespace hdrt

#endif // HDRT_KERNELS_POOL2D_POOL2DKERNELS_H
