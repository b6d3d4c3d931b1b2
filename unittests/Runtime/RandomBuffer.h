//===- RandomBuffer.h - random inputs for the runtime tests -----*- C++ -*-===//

#ifndef HD_UNITTESTS_RUNTIME_RANDOMBUFFER_H
#define HD_UNITTESTS_RUNTIME_RANDOMBUFFER_H

#include <random>
#include <vector>

/// `n` floats uniform in [lo, hi).
inline std::vector<float> randomBuffer(size_t n, std::mt19937 &rng,
                                       float lo = -1, float hi = 1) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = u(rng);
  return v;
}

#endif // HD_UNITTESTS_RUNTIME_RANDOMBUFFER_H
