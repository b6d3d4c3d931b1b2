//===- ChannelShuffleCpu.cpp - the channel shuffle on the host ------------===//

#include "ChannelShuffleKernels.h"

#include <cstring>

namespace hdrt {

namespace {

class CpuChannelShuffle final : public ChannelShuffleKernels {
public:
  void shuffle(int64_t n, int64_t c, int64_t hw, int64_t groups,
               const float *in, float *out) override {
    int64_t perGroup = c / groups;
    for (int64_t s = 0; s < n; ++s)
      for (int64_t k = 0; k < perGroup; ++k)
        for (int64_t g = 0; g < groups; ++g)
          std::memcpy(out + (s * c + k * groups + g) * hw,
                      in + (s * c + g * perGroup + k) * hw, hw * sizeof(float));
  }
};

} // namespace

HDRT_REGISTER_KERNELS(ChannelShuffleKernels, "cpu", CpuChannelShuffle);

} // namespace hdrt
