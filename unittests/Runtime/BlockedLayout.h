//===- BlockedLayout.h - NCHW <-> nChw<B>c by definition --------*- C++ -*-===//
//
// The oracle of the blocked-layout tests: channel c of sample s at
// position i sits at ((s * C/B + c/B) * HW + i) * B + c%B, element by
// element.
//
//===----------------------------------------------------------------------===//

#ifndef HD_UNITTESTS_RUNTIME_BLOCKEDLAYOUT_H
#define HD_UNITTESTS_RUNTIME_BLOCKEDLAYOUT_H

#include <cstddef>
#include <cstdint>
#include <vector>

inline int64_t blockedOffset(int64_t s, int64_t c, int64_t i, int64_t C,
                             int64_t HW, int64_t B) {
  return ((s * (C / B) + c / B) * HW + i) * B + c % B;
}

/// An N x C x HW tensor in nChw<B>c (B = 1: unchanged).
inline std::vector<float> toBlocked(const std::vector<float> &plain, int64_t N,
                                    int64_t C, int64_t HW, int64_t B) {
  std::vector<float> out(plain.size());
  for (int64_t s = 0; s < N; ++s)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < HW; ++i)
        out[size_t(blockedOffset(s, c, i, C, HW, B))] =
            plain[size_t((s * C + c) * HW + i)];
  return out;
}

inline std::vector<float> fromBlocked(const std::vector<float> &blocked,
                                      int64_t N, int64_t C, int64_t HW,
                                      int64_t B) {
  std::vector<float> out(blocked.size());
  for (int64_t s = 0; s < N; ++s)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < HW; ++i)
        out[size_t((s * C + c) * HW + i)] =
            blocked[size_t(blockedOffset(s, c, i, C, HW, B))];
  return out;
}

#endif // HD_UNITTESTS_RUNTIME_BLOCKEDLAYOUT_H
