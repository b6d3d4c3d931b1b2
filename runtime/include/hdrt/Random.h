//===- Random.h - counter-based random numbers ------------------*- C++ -*-===//
//
// Dropout masks, weight initialization and synthetic data must not depend
// on how a layer is split: each number is a pure function of (seed, stream,
// global element index), never of a rank-local position. SplitMix64's
// finalizer over the three keys is enough for training noise and is the
// same on every platform.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_RANDOM_H
#define HDRT_RANDOM_H

#include <cstdint>

// The CUDA backend draws the same numbers on the GPU.
#ifdef __CUDACC__
#define HDRT_HOST_DEVICE __host__ __device__
#else
#define HDRT_HOST_DEVICE
#endif

namespace hdrt {

HDRT_HOST_DEVICE inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// 64 random bits for element `index` of stream `stream`.
HDRT_HOST_DEVICE inline uint64_t randomBits(uint64_t seed, uint64_t stream,
                                            uint64_t index) {
  return mix64(mix64(seed * 0x9e3779b97f4a7c15ull + stream) + index);
}

/// A uniform number in [0, 1) for element `index` of stream `stream`.
HDRT_HOST_DEVICE inline float uniform(uint64_t seed, uint64_t stream, uint64_t index) {
  uint64_t h = randomBits(seed, stream, index);
  return static_cast<float>(h >> 40) * (1.0f / 16777216.0f); // 24 bits
}

/// A uniform integer in [0, n) for element `index` of stream `stream`, from
/// all 64 bits (the high word of bits * n): a float's 24 bits could reach
/// only 2^24 of the indices of a larger data set.
inline uint64_t uniformIndex(uint64_t seed, uint64_t stream, uint64_t index,
                             uint64_t n) {
  return uint64_t((unsigned __int128)randomBits(seed, stream, index) * n >>
                  64);
}

} // namespace hdrt

#endif // HDRT_RANDOM_H
