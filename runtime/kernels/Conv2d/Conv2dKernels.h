//===- Conv2dKernels.h - a convolution on one tile --------------*- C++ -*-===//
//
// A task runs the layer on its own tile: the input buffer is the tile's
// input box (halo included), so the padding the kernel sees is per side and
// may be asymmetric (a halo replaces padding inside the image). Activation
// tiles are NCHW or, where the executor keeps them so, in the device's
// blocked layout (TileLayouts).
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_KERNELS_CONV2D_CONV2DKERNELS_H
#define HDRT_KERNELS_CONV2D_CONV2DKERNELS_H

#include "hdrt/Kernels.h"
#include "hdrt/common/Geometry.h"

#include <cstdint>

namespace hdrt {

/// One kernel call: the window over the tile's input box, the tile's
/// output channels and the groups they span.
struct Conv2dShape {
  Window2d window;
  int64_t outChannels = 1;
  int64_t groups = 1;
  TileLayouts layouts;
};

class Conv2dKernels : public KernelSet {
public:
  static constexpr const char *kName = "Conv2d";

  /// out[n, k, y, x] = bias[k] + sum in * weight; weight is
  /// K x C/G x kh x kw. `bias` may be null.
  virtual void forward(const Conv2dShape &s, const float *in,
                       const float *weight, const float *bias, float *out) = 0;
  /// dIn = the gradient of the input box (overwritten).
  virtual void backwardData(const Conv2dShape &s, const float *dOut,
                            const float *weight, float *dIn) = 0;
  /// dWeight (and dBias when not null) = this tile's parameter gradients
  /// (overwritten).
  virtual void backwardWeights(const Conv2dShape &s, const float *in,
                               const float *dOut, float *dWeight,
                               float *dBias) = 0;
};

} // namespace hdrt

#endif // HDRT_KERNELS_CONV2D_CONV2DKERNELS_H
