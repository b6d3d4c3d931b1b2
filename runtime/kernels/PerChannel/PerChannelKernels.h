//===- PerChannelKernels.h - broadcast and sum along channels ---*- C++ -*-===//
//
// A value per channel spread over an n x c x hw tile, and a tile summed
// into a value per channel: a convolution tile whose windows lie entirely
// in the padding (its output is the bias, its bias gradient the sum), and
// the per-channel operand of hd.channel_binary.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_KERNELS_PERCHANNEL_PERCHANNELKERNELS_H
#define HDRT_KERNELS_PERCHANNEL_PERCHANNELKERNELS_H

#include "hdrt/Kernels.h"

#include <cstdint>

namespace hdrt {

class PerChannelKernels : public KernelSet {
public:
  static constexpr const char *kName = "PerChannel";

  /// out[n, c, :] = perChannel[c] (or 0 when null).
  virtual void fill(int64_t n, int64_t c, int64_t hw, const float *perChannel,
                    float *out) = 0;
  /// out[c] = sum over n and hw of in[n, c, :] (overwritten).
  virtual void sum(int64_t n, int64_t c, int64_t hw, const float *in,
                   float *out) = 0;
};

} // namespace hdrt

#endif // HDRT_KERNELS_PERCHANNEL_PERCHANNELKERNELS_H
