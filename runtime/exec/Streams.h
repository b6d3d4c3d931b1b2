//===- Streams.h - the random streams of a program --------------*- C++ -*-===//
//
// Every random number of a run comes from the counter-based generator
// (hdrt/Random.h) keyed by (seed, stream, global index): one stream per use,
// so weights, data and masks never share numbers, and none depends on how
// the program is split.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_EXEC_STREAMS_H
#define HDRT_EXEC_STREAMS_H

#include "hdrt/Random.h"

#include <cstdint>

namespace hdrt::exec {

enum Stream : uint64_t {
  kWeights = 1,
  kImages = 2,
  kLabels = 3,
  kMasks = 4,
  kPrototypes = 5,
  kShuffle = 6,
  kAugment = 7,
};

/// The stream of use `kind` for keys `a` and `b` (a step, a layer, ...).
inline uint64_t streamOf(Stream kind, uint64_t a, uint64_t b = 0) {
  return mix64((uint64_t(kind) << 56) ^ (a << 24) ^ b);
}

} // namespace hdrt::exec

#endif // HDRT_EXEC_STREAMS_H
