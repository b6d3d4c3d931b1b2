//===- PerChannelCpu.cpp - broadcast and sum along channels on the host ---===//

#include "PerChannelKernels.h"

#include "hdrt/common/Parallel.h"

#include <algorithm>

namespace hdrt {

namespace {

class CpuPerChannel final : public PerChannelKernels {
public:
  void fill(int64_t n, int64_t c, int64_t hw, const float *perChannel,
            float *out) override {
    parallelFor(n * c, n * c * hw, [&](int64_t row) {
      std::fill(out + row * hw, out + (row + 1) * hw,
                perChannel ? perChannel[row % c] : 0.0f);
    });
  }

  void sum(int64_t n, int64_t c, int64_t hw, const float *in,
           float *out) override {
    // One channel per iteration, its terms in the serial order.
    parallelFor(c, n * c * hw, [&](int64_t ch) {
      float total = 0.0f;
      for (int64_t s = 0; s < n; ++s)
        for (int64_t i = 0; i < hw; ++i)
          total += in[(s * c + ch) * hw + i];
      out[ch] = total;
    });
  }
};

} // namespace

HDRT_REGISTER_KERNELS(PerChannelKernels, "cpu", CpuPerChannel);

} // namespace hdrt
