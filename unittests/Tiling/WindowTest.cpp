//===- WindowTest.cpp - sliding-window sizes and regions vs enumeration ---===//

#include "hd/Tiling/Window.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace hd;

namespace {
/// Floor mode by enumeration: windows that fit entirely in the padded input.
int64_t countWindows(int64_t in, const Window &w) {
  int64_t n = 0;
  for (int64_t start = 0; start + w.extent() <= in + w.padLo + w.padHi;
       start += w.stride)
    ++n;
  return n;
}

/// The input elements the outputs `out` read, by visiting every tap.
Range tapsBoundingRange(Range out, int64_t in, const Window &w) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (int64_t o = out.lo; o < out.hi; ++o)
    for (int64_t k = 0; k < w.kernel; ++k) {
      int64_t i = o * w.stride - w.padLo + k * w.dilation;
      if (i >= 0 && i < in) {
        lo = std::min(lo, i);
        hi = std::max(hi, i + 1);
      }
    }
  return lo > hi ? Range{0, 0} : Range{lo, hi};
}
} // namespace

TEST(Window, FloorOutputSizeMatchesEnumeration) {
  for (int64_t in = 1; in <= 20; ++in)
    for (int64_t k = 1; k <= 5; ++k)
      for (int64_t s = 1; s <= 4; ++s)
        for (int64_t d = 1; d <= 3; ++d)
          for (int64_t p = 0; p <= 2; ++p) {
            Window w{k, s, p, p + 1, d, false};
            EXPECT_EQ(w.outputSize(in), countWindows(in, w))
                << "in=" << in << " k=" << k << " s=" << s << " d=" << d;
          }
}

// Ceil mode, values as PyTorch and ONNX compute them.
TEST(Window, CeilOutputSize) {
  EXPECT_EQ((Window{2, 2, 0, 0, 1, true}).outputSize(5), 3);
  EXPECT_EQ((Window{3, 2, 0, 0, 1, true}).outputSize(4), 2);
  EXPECT_EQ((Window{3, 2, 1, 1, 1, true}).outputSize(6), 4);
  // The 4th window would start in the trailing padding: dropped.
  EXPECT_EQ((Window{2, 2, 1, 1, 1, true}).outputSize(5), 3);
  EXPECT_EQ((Window{1, 3, 0, 0, 1, true}).outputSize(5), 2);
  // Inception-v3 and AlexNet shapes.
  EXPECT_EQ((Window{3, 2, 0, 0, 1, false}).outputSize(147), 73);
  EXPECT_EQ((Window{11, 4, 2, 2, 1, false}).outputSize(224), 55);
}

TEST(Window, KernelLargerThanInputHasNoOutput) {
  EXPECT_EQ((Window{5, 1, 0, 0, 1, false}).outputSize(3), 0);
  EXPECT_EQ((Window{3, 1, 0, 0, 2, false}).outputSize(4), 0);
}

// Without dilation the region is exactly the taps' bounding range; with
// dilation it is the clipped window span, which contains every tap.
TEST(Window, InputRangeMatchesTaps) {
  for (int64_t in = 1; in <= 16; ++in)
    for (int64_t k = 1; k <= 4; ++k)
      for (int64_t s = 1; s <= 3; ++s)
        for (int64_t d = 1; d <= 2; ++d)
          for (int64_t p = 0; p < k; ++p) {
            Window w{k, s, p, p, d, false};
            int64_t out = w.outputSize(in);
            for (int64_t lo = 0; lo < out; ++lo)
              for (int64_t hi = lo + 1; hi <= out; ++hi) {
                Range got = w.inputRange({lo, hi}, in);
                Range taps = tapsBoundingRange({lo, hi}, in, w);
                if (d == 1) {
                  EXPECT_EQ(got, taps) << "in=" << in << " k=" << k
                                       << " s=" << s << " out=[" << lo
                                       << "," << hi << ")";
                } else {
                  EXPECT_LE(got.lo, taps.lo);
                  EXPECT_GE(got.hi, taps.hi);
                }
              }
            EXPECT_TRUE(w.inputRange({2, 2}, in).empty());
          }
}

TEST(Window, SamePaddingKeepsCeilOfInputOverStride) {
  for (int64_t in = 1; in <= 20; ++in)
    for (int64_t k = 1; k <= 5; ++k)
      for (int64_t s = 1; s <= 3; ++s)
        for (bool upper : {true, false}) {
          Window w{k, s, 0, 0, 1, false};
          setSamePadding(w, in, upper);
          EXPECT_EQ(w.outputSize(in), (in + s - 1) / s);
          EXPECT_LE(std::abs(w.padLo - w.padHi), 1);
          EXPECT_EQ(upper ? w.padHi >= w.padLo : w.padLo >= w.padHi, true);
        }
}
