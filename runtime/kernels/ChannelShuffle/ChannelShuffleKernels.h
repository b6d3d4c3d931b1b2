//===- ChannelShuffleKernels.h - ShuffleNet's channel shuffle ---*- C++ -*-===//

#ifndef HDRT_KERNELS_CHANNELSHUFFLE_CHANNELSHUFFLEKERNELS_H
#define HDRT_KERNELS_CHANNELSHUFFLE_CHANNELSHUFFLEKERNELS_H

#include "hdrt/Kernels.h"

#include <cstdint>

namespace hdrt {

class ChannelShuffleKernels : public KernelSet {
public:
  static constexpr const char *kName = "ChannelShuffle";

  /// The shuffle of an n x c x hw tile:
  /// out[i, k * groups + g] = in[i, g * c / groups + k]. Its inverse is the
  /// shuffle with c / groups groups.
  virtual void shuffle(int64_t n, int64_t c, int64_t hw, int64_t groups,
                       const float *in, float *out) = 0;
};

} // namespace hdrt

#endif // HDRT_KERNELS_CHANNELSHUFFLE_CHANNELSHUFFLEKERNELS_H
