//===- DropoutKernels.h - dropout, the same under any split -----*- C++ -*-===//
//
// Each element's mask is drawn from (seed, stream, its global index), so
// every split of the layer drops the same elements; the backward is the
// same call on the gradients.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_KERNELS_DROPOUT_DROPOUTKERNELS_H
#define HDRT_KERNELS_DROPOUT_DROPOUTKERNELS_H

#include "hdrt/Kernels.h"
#include "hdrt/Random.h"
#include "hdrt/common/Geometry.h"

#include <cstdint>

namespace hdrt {

/// in * mask / (1 - ratio) for the element at `global` (`keep` is
/// 1 / (1 - ratio)): the one formula of every device.
HDRT_HOST_DEVICE inline float dropoutElement(float in, float ratio, float keep,
                                             uint64_t seed, uint64_t stream,
                                             uint64_t global) {
  return uniform(seed, stream, global) < ratio ? 0.0f : in * keep;
}

class DropoutKernels : public KernelSet {
public:
  static constexpr const char *kName = "Dropout";

  /// out = in * mask / (1 - ratio) over the tile, row-major.
  virtual void apply(const TileRegion &tile, uint64_t seed, uint64_t stream,
                     float ratio, const float *in, float *out) = 0;
};

} // namespace hdrt

#endif // HDRT_KERNELS_DROPOUT_DROPOUTKERNELS_H
