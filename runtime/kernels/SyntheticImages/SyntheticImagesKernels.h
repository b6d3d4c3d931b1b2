//===- SyntheticImagesKernels.h - images made where used --------*- C++ -*-===//
//
// A run without --data trains on synthetic samples (exec/InputSource.h):
// each sample's label is uniform, and its image is that class's fixed random
// prototype plus as much uniform noise, every number a pure function of the
// seed and the global indices. On a GPU, making a batch on the host and
// uploading it cost more than the step's convolutions (38 MiB a step at
// batch 64 of 224x224); the device makes its input boxes itself instead,
// from the same formulas.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_KERNELS_SYNTHETICIMAGES_SYNTHETICIMAGESKERNELS_H
#define HDRT_KERNELS_SYNTHETICIMAGES_SYNTHETICIMAGESKERNELS_H

#include "hdrt/Box.h"
#include "hdrt/Kernels.h"
#include "hdrt/Random.h"

#include <cstdint>

namespace hdrt {

/// The random streams and sizes of one step's synthetic batch.
struct SyntheticBatch {
  uint64_t seed = 0;
  uint64_t labels = 0, noise = 0, prototypes = 0; // streams
  int64_t classes = 1;
};

/// The label of sample `n` of the global batch.
HDRT_HOST_DEVICE inline int32_t syntheticLabel(const SyntheticBatch &b,
                                               int64_t n) {
  float u = uniform(b.seed, b.labels, uint64_t(n));
  int64_t label = int64_t(u * float(b.classes));
  return int32_t(label < b.classes - 1 ? label : b.classes - 1);
}

/// Element `offset` of sample `n`'s image (of `sampleVolume` elements),
/// whose label is `label`.
HDRT_HOST_DEVICE inline float syntheticPixel(const SyntheticBatch &b,
                                             int64_t label, int64_t n,
                                             int64_t sampleVolume,
                                             int64_t offset) {
  float p =
      uniform(b.seed, b.prototypes, uint64_t(label * sampleVolume + offset));
  float u = uniform(b.seed, b.noise, uint64_t(n * sampleVolume + offset));
  return (2.0f * p - 1.0f) + (2.0f * u - 1.0f);
}

class SyntheticImagesKernels : public KernelSet {
public:
  static constexpr const char *kName = "SyntheticImages";

  /// `box` (n, c, h, w) of the batch's images of `shape` into `out`,
  /// row-major.
  virtual void images(const SyntheticBatch &batch, const int64_t *shape,
                      const Box &box, float *out) = 0;
};

} // namespace hdrt

#endif // HDRT_KERNELS_SYNTHETICIMAGES_SYNTHETICIMAGESKERNELS_H
