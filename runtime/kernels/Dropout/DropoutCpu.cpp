//===- DropoutCpu.cpp - dropout on the host -------------------------------===//

#include "DropoutKernels.h"

namespace hdrt {

namespace {

class CpuDropout final : public DropoutKernels {
public:
  void apply(const TileRegion &tile, uint64_t seed, uint64_t stream,
             float ratio, const float *in, float *out) override {
    float keep = 1.0f / (1.0f - ratio);
    // The global index of each element, walked in row-major order.
    int64_t index[4];
    for (int64_t d = 0; d < tile.rank; ++d)
      index[d] = tile.lo[d];
    for (int64_t i = 0, v = tile.volume(); i < v; ++i) {
      int64_t global = 0;
      for (int64_t d = 0; d < tile.rank; ++d)
        global = global * tile.shape[d] + index[d];
      out[i] =
          dropoutElement(in[i], ratio, keep, seed, stream, uint64_t(global));
      for (int64_t d = tile.rank; d-- > 0;) {
        if (++index[d] < tile.hi[d])
          break;
        index[d] = tile.lo[d];
      }
    }
  }
};

} // namespace

HDRT_REGISTER_KERNELS(DropoutKernels, "cpu", CpuDropout);

} // namespace hdrt
