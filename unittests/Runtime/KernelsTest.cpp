//===- KernelsTest.cpp - CPU kernels against naive loops ------------------===//
//
// The CPU kernels of convolution, pooling, fully-connected layers and ReLU
// (runtime/kernels/{Conv2d,Pool2d,Linear,Relu}/). The oracle is the
// definition: direct loops over every output and tap. Shapes cover groups,
// strides, dilation and the asymmetric padding of halo tiles.
//
//===----------------------------------------------------------------------===//

#include "kernels/Conv2d/Conv2dKernels.h"
#include "kernels/Linear/LinearKernels.h"
#include "kernels/Pool2d/Pool2dKernels.h"
#include "kernels/Relu/ReluKernels.h"

#include "BlockedLayout.h"
#include "CpuKernels.h"
#include "RandomBuffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace hdrt;

namespace {

void expectClose(const std::vector<float> &got, const std::vector<float> &want,
                 const char *what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, double(std::abs(got[i] - want[i])) /
                                (1 + std::abs(want[i])));
  EXPECT_LT(worst, 1e-4) << what;
}

/// Calls f(n, k, y, x, c, i, j, inputIndex) for every tap of a convolution
/// that reads inside the input box.
template <typename F> void forEachTap(const Conv2dShape &s, F f) {
  const Window2d &w = s.window;
  int64_t K = s.outChannels, G = s.groups, Cg = w.c / G, Kg = K / G;
  for (int64_t n = 0; n < w.n; ++n)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t y = 0; y < w.outH(); ++y)
        for (int64_t x = 0; x < w.outW(); ++x)
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t i = 0; i < w.kh; ++i)
              for (int64_t j = 0; j < w.kw; ++j) {
                int64_t iy = y * w.strideH - w.padTop + i * w.dilationH;
                int64_t ix = x * w.strideW - w.padLeft + j * w.dilationW;
                if (iy < 0 || iy >= w.h || ix < 0 || ix >= w.w)
                  continue;
                int64_t ic = (k / Kg) * Cg + c;
                f(n, k, y, x, c, i, j, ((n * w.c + ic) * w.h + iy) * w.w + ix);
              }
}

int64_t outIndex(const Conv2dShape &s, int64_t n, int64_t k, int64_t y,
                 int64_t x) {
  return ((n * s.outChannels + k) * s.window.outH() + y) * s.window.outW() + x;
}

int64_t weightIndex(const Conv2dShape &s, int64_t k, int64_t c, int64_t i,
                    int64_t j) {
  return ((k * (s.window.c / s.groups) + c) * s.window.kh + i) * s.window.kw +
         j;
}

std::vector<Conv2dShape> convShapes() {
  std::vector<Conv2dShape> shapes;
  auto add = [&](Window2d w, int64_t k, int64_t g) {
    shapes.push_back({w, k, g});
  };
  add({2, 3, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, 4, 1);  // same padding
  add({1, 4, 11, 11, 5, 3, 2, 2, 2, 1, 2, 1, 1, 1}, 6, 2); // strided, grouped
  add({2, 2, 10, 7, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2}, 3, 1);  // dilated
  // A halo tile: padding only on top (the image border), real rows below.
  add({1, 3, 6, 8, 3, 3, 1, 1, 1, 1, 0, 1, 1, 1}, 5, 1);
  add({3, 6, 5, 5, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1}, 6, 6);  // depthwise 1x1
  // RegNet's groups of 16 channels, on a small image and on a 2 x 2 one.
  add({2, 32, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, 32, 2);
  add({4, 400, 2, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, 400, 25);
  return shapes;
}

} // namespace

namespace {

/// Every pass of convolution `s` against the direct loops; without a bias
/// when `withBias` is false.
void expectConvolutionMatches(const Conv2dShape &s, std::mt19937 &rng,
                              bool withBias = true) {
  const Window2d &w = s.window;
  size_t inSize = w.n * w.c * w.h * w.w;
  size_t outSize = w.n * s.outChannels * w.outH() * w.outW();
  size_t wSize = s.outChannels * (w.c / s.groups) * w.kh * w.kw;
  auto in = randomBuffer(inSize, rng), weight = randomBuffer(wSize, rng);
  auto bias = randomBuffer(s.outChannels, rng);
  auto dOut = randomBuffer(outSize, rng);

  std::vector<float> out(outSize), wantOut(outSize, 0);
  if (withBias)
    for (size_t i = 0; i < outSize; ++i)
      wantOut[i] = bias[(i / (w.outH() * w.outW())) % s.outChannels];
  std::vector<float> wantDIn(inSize, 0), wantDW(wSize, 0),
      wantDB(s.outChannels, 0);
  forEachTap(s, [&](int64_t n, int64_t k, int64_t y, int64_t x, int64_t c,
                    int64_t i, int64_t j, int64_t ii) {
    int64_t o = outIndex(s, n, k, y, x), wi = weightIndex(s, k, c, i, j);
    wantOut[o] += in[ii] * weight[wi];
    wantDIn[ii] += dOut[o] * weight[wi];
    wantDW[wi] += dOut[o] * in[ii];
  });
  for (size_t i = 0; i < outSize; ++i)
    wantDB[(i / (w.outH() * w.outW())) % s.outChannels] += dOut[i];

  Conv2dKernels &conv = cpuKernels<Conv2dKernels>();
  conv.forward(s, in.data(), weight.data(), withBias ? bias.data() : nullptr,
               out.data());
  expectClose(out, wantOut, "forward");
  std::vector<float> dIn(inSize), dW(wSize), dB(s.outChannels);
  conv.backwardData(s, dOut.data(), weight.data(), dIn.data());
  expectClose(dIn, wantDIn, "backward data");
  conv.backwardWeights(s, in.data(), dOut.data(), dW.data(),
                       withBias ? dB.data() : nullptr);
  expectClose(dW, wantDW, "backward weights");
  if (withBias)
    expectClose(dB, wantDB, "backward bias");
}

} // namespace

TEST(Kernels, ConvolutionMatchesDirectLoops) {
  std::mt19937 rng(1);
  for (const Conv2dShape &s : convShapes())
    expectConvolutionMatches(s, rng);
}

// Primitives are made once per shape and kept: a shape that differs from
// one already run in any single field, or in having a bias, must get its
// own, and the first shape must still get its own afterwards.
TEST(Kernels, KeptPrimitivesTellEveryShapeApart) {
  std::mt19937 rng(7);
  const Conv2dShape base{{2, 4, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, 4, 2};
  // One valid change per field; the last: one input channel per group.
  std::vector<std::pair<int64_t Conv2dShape::*, int64_t>> shapeFields = {
      {&Conv2dShape::outChannels, 6}, {&Conv2dShape::groups, 4}};
  std::vector<std::pair<int64_t Window2d::*, int64_t>> windowFields = {
      {&Window2d::n, 3},         {&Window2d::c, 8},
      {&Window2d::h, 10},        {&Window2d::w, 7},
      {&Window2d::kh, 5},        {&Window2d::kw, 1},
      {&Window2d::strideH, 2},   {&Window2d::strideW, 2},
      {&Window2d::padTop, 0},    {&Window2d::padLeft, 2},
      {&Window2d::padBottom, 0}, {&Window2d::padRight, 0},
      {&Window2d::dilationH, 2}, {&Window2d::dilationW, 2},
      {&Window2d::c, 2}};
  std::vector<Conv2dShape> variants;
  for (auto [field, value] : shapeFields) {
    variants.push_back(base);
    variants.back().*field = value;
  }
  for (auto [field, value] : windowFields) {
    variants.push_back(base);
    variants.back().window.*field = value;
  }
  for (const Conv2dShape &v : variants) {
    SCOPED_TRACE(::testing::Message()
                 << "variant " << (&v - variants.data()));
    expectConvolutionMatches(base, rng);
    expectConvolutionMatches(v, rng);
    expectConvolutionMatches(v, rng, /*withBias=*/false);
  }
  expectConvolutionMatches(base, rng, /*withBias=*/false);
  expectConvolutionMatches(base, rng);
}

TEST(Kernels, PoolingMatchesDirectLoops) {
  Pool2dKernels &pool = cpuKernels<Pool2dKernels>();
  std::mt19937 rng(2);
  std::vector<Pool2dShape> shapes = {
      {{2, 3, 9, 9, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1}, true, false},
      {{1, 2, 8, 8, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1}, true, false},
      {{2, 2, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, false, true},
      {{1, 3, 6, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1}, false, false},
      {{2, 4, 5, 5, 5, 5, 1, 1, 0, 0, 0, 0, 1, 1}, false, false}, // global
      // A halo tile's one-sided padding, and strides past the window.
      {{1, 2, 9, 8, 3, 3, 2, 2, 1, 0, 0, 1, 1, 1}, true, false},
      {{2, 2, 9, 8, 2, 2, 3, 3, 1, 0, 0, 1, 1, 1}, true, false},
      {{2, 2, 9, 8, 2, 3, 3, 2, 0, 1, 1, 0, 1, 1}, false, false},
  };
  for (const Pool2dShape &s : shapes) {
    const Window2d &w = s.window;
    size_t inSize = w.n * w.c * w.h * w.w;
    size_t outSize = w.n * w.c * w.outH() * w.outW();
    auto in = randomBuffer(inSize, rng), dOut = randomBuffer(outSize, rng);
    std::vector<float> wantOut(outSize), wantDIn(inSize, 0);
    for (int64_t n = 0; n < w.n; ++n)
      for (int64_t c = 0; c < w.c; ++c)
        for (int64_t y = 0; y < w.outH(); ++y)
          for (int64_t x = 0; x < w.outW(); ++x) {
            int64_t o = ((n * w.c + c) * w.outH() + y) * w.outW() + x;
            float best = -std::numeric_limits<float>::infinity(), sum = 0;
            int64_t arg = -1, real = 0;
            for (int64_t i = 0; i < w.kh; ++i)
              for (int64_t j = 0; j < w.kw; ++j) {
                int64_t iy = y * w.strideH - w.padTop + i;
                int64_t ix = x * w.strideW - w.padLeft + j;
                if (iy < 0 || iy >= w.h || ix < 0 || ix >= w.w)
                  continue;
                int64_t ii = ((n * w.c + c) * w.h + iy) * w.w + ix;
                ++real;
                sum += in[ii];
                if (in[ii] > best) {
                  best = in[ii];
                  arg = ii;
                }
              }
            float div = s.countIncludePad ? float(w.kh * w.kw) : float(real);
            wantOut[o] = s.max ? best : sum / div;
            if (s.max) {
              wantDIn[arg] += dOut[o];
              continue;
            }
            for (int64_t i = 0; i < w.kh; ++i)
              for (int64_t j = 0; j < w.kw; ++j) {
                int64_t iy = y * w.strideH - w.padTop + i;
                int64_t ix = x * w.strideW - w.padLeft + j;
                if (iy >= 0 && iy < w.h && ix >= 0 && ix < w.w)
                  wantDIn[((n * w.c + c) * w.h + iy) * w.w + ix] +=
                      dOut[o] / div;
              }
          }
    std::vector<float> out(outSize), dIn(inSize);
    pool.forward(s, in.data(), out.data(), /*workspace=*/nullptr);
    expectClose(out, wantOut, s.max ? "max forward" : "avg forward");
    pool.backward(s, in.data(), dOut.data(), dIn.data(),
                  /*workspace=*/nullptr);
    expectClose(dIn, wantDIn, s.max ? "max backward" : "avg backward");
    // With the forward's workspace, backward takes the maxima's places from
    // it: the same gradient, even from an input it could not find them in.
    std::vector<uint8_t> workspace(size_t(pool.workspaceBytes(s)));
    EXPECT_EQ(workspace.empty(), !s.max);
    void *kept = workspace.empty() ? nullptr : workspace.data();
    std::vector<float> zeros(inSize, 0.0f), keptDIn(inSize);
    pool.forward(s, in.data(), out.data(), kept);
    expectClose(out, wantOut, "forward into a workspace");
    pool.backward(s, s.max ? zeros.data() : in.data(), dOut.data(),
                  keptDIn.data(), kept);
    expectClose(keptDIn, wantDIn, "backward from the workspace");

    // The GPU's per-element formulas (Pool2dKernels.h) on the host: a
    // thread per output forward, a thread per input gathering backward.
    PoolGeometry g = geometryOf(s);
    std::vector<int32_t> places(size_t(g.outputs()));
    std::vector<float> gpuOut(outSize), gpuDIn(inSize);
    for (int64_t i = 0; i < g.outputs(); ++i)
      poolForwardAt(g, i, in.data(), gpuOut.data(), places.data());
    expectClose(gpuOut, wantOut, "the GPU's forward formula");
    for (int64_t i = 0; i < g.inputs(); ++i)
      gpuDIn[size_t(i)] = poolGradientAt(g, i, dOut.data(), places.data());
    expectClose(gpuDIn, wantDIn, "the GPU's gathered backward");
  }
}

// Activation tiles in the blocked layout, on either side of a kernel: the
// same values as the NCHW call (itself held to the direct loops above),
// element by element after converting back.
TEST(Kernels, BlockedLayoutsGiveTheNchwResults) {
  const int64_t B = cpuDevice().channelBlock();
  ASSERT_TRUE(B == 8 || B == 16);
  Conv2dKernels &conv = cpuKernels<Conv2dKernels>();
  Pool2dKernels &pool = cpuKernels<Pool2dKernels>();
  std::mt19937 rng(11);
  auto blocked = [&](const std::vector<float> &v, int64_t n, int64_t c,
                     int64_t hw, int64_t block) {
    return toBlocked(v, n, c, hw, block);
  };
  std::vector<Conv2dShape> convs = {
      {{2, 2 * B, 9, 8, 3, 3, 2, 2, 1, 1, 1, 0, 1, 1}, B, 1},
      {{1, B, 7, 7, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1}, 2 * B, 1},
      {{2, 2 * B, 6, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, 2 * B, 2}};
  for (const Conv2dShape &base : convs) {
    const Window2d &w = base.window;
    int64_t hwIn = w.h * w.w, hwOut = w.outH() * w.outW();
    int64_t k = base.outChannels;
    auto in = randomBuffer(w.n * w.c * hwIn, rng);
    auto weight = randomBuffer(k * (w.c / base.groups) * w.kh * w.kw, rng);
    auto bias = randomBuffer(k, rng), dOut = randomBuffer(w.n * k * hwOut, rng);
    std::vector<float> want(dOut.size()), wantDIn(in.size()),
        wantDW(weight.size()), wantDB(k);
    conv.forward(base, in.data(), weight.data(), bias.data(), want.data());
    conv.backwardData(base, dOut.data(), weight.data(), wantDIn.data());
    conv.backwardWeights(base, in.data(), dOut.data(), wantDW.data(),
                         wantDB.data());
    for (TileLayouts layouts : {TileLayouts{B, 1}, TileLayouts{1, B},
                                TileLayouts{B, B}}) {
      SCOPED_TRACE(::testing::Message() << "conv, in " << layouts.in
                                        << ", out " << layouts.out);
      Conv2dShape s = base;
      s.layouts = layouts;
      auto bIn = blocked(in, w.n, w.c, hwIn, layouts.in);
      auto bDOut = blocked(dOut, w.n, k, hwOut, layouts.out);
      std::vector<float> out(want.size()), dIn(in.size()), dW(weight.size()),
          dB(k);
      conv.forward(s, bIn.data(), weight.data(), bias.data(), out.data());
      conv.backwardData(s, bDOut.data(), weight.data(), dIn.data());
      conv.backwardWeights(s, bIn.data(), bDOut.data(), dW.data(), dB.data());
      expectClose(fromBlocked(out, w.n, k, hwOut, layouts.out), want,
                  "forward");
      expectClose(fromBlocked(dIn, w.n, w.c, hwIn, layouts.in), wantDIn,
                  "backward data");
      expectClose(dW, wantDW, "backward weights");
      expectClose(dB, wantDB, "backward bias");
    }
  }
  for (bool max : {true, false}) {
    Pool2dShape base{{2, 2 * B, 9, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1}, max};
    const Window2d &w = base.window;
    int64_t hwIn = w.h * w.w, hwOut = w.outH() * w.outW();
    auto in = randomBuffer(w.n * w.c * hwIn, rng);
    auto dOut = randomBuffer(w.n * w.c * hwOut, rng);
    std::vector<float> want(dOut.size()), wantDIn(in.size());
    pool.forward(base, in.data(), want.data(), /*workspace=*/nullptr);
    pool.backward(base, in.data(), dOut.data(), wantDIn.data(),
                  /*workspace=*/nullptr);
    for (TileLayouts layouts : {TileLayouts{B, 1}, TileLayouts{1, B},
                                TileLayouts{B, B}}) {
      SCOPED_TRACE(::testing::Message() << (max ? "max" : "avg") << " pool, in "
                                        << layouts.in << ", out "
                                        << layouts.out);
      Pool2dShape s = base;
      s.layouts = layouts;
      auto bIn = blocked(in, w.n, w.c, hwIn, layouts.in);
      auto bDOut = blocked(dOut, w.n, w.c, hwOut, layouts.out);
      std::vector<float> out(want.size()), dIn(in.size());
      pool.forward(s, bIn.data(), out.data(), /*workspace=*/nullptr);
      pool.backward(s, bIn.data(), bDOut.data(), dIn.data(),
                    /*workspace=*/nullptr);
      expectClose(fromBlocked(out, w.n, w.c, hwOut, layouts.out), want,
                  "forward");
      expectClose(fromBlocked(dIn, w.n, w.c, hwIn, layouts.in), wantDIn,
                  "backward");
    }
  }
}

TEST(Kernels, LinearMatchesDirectLoops) {
  LinearKernels &linear = cpuKernels<LinearKernels>();
  std::mt19937 rng(3);
  for (auto [n, f, k] : std::vector<std::array<int64_t, 3>>{
           {4, 7, 5}, {1, 16, 3}, {9, 3, 12}}) {
    auto in = randomBuffer(n * f, rng), weight = randomBuffer(k * f, rng);
    auto bias = randomBuffer(k, rng), dOut = randomBuffer(n * k, rng);
    std::vector<float> wantOut(n * k), wantDIn(n * f, 0), wantDW(k * f, 0),
        wantDB(k, 0);
    for (int64_t a = 0; a < n; ++a)
      for (int64_t b = 0; b < k; ++b) {
        wantOut[a * k + b] = bias[b];
        wantDB[b] += dOut[a * k + b];
        for (int64_t c = 0; c < f; ++c) {
          wantOut[a * k + b] += in[a * f + c] * weight[b * f + c];
          wantDIn[a * f + c] += dOut[a * k + b] * weight[b * f + c];
          wantDW[b * f + c] += dOut[a * k + b] * in[a * f + c];
        }
      }
    std::vector<float> out(n * k), dIn(n * f), dW(k * f), dB(k);
    linear.forward(n, f, k, in.data(), weight.data(), bias.data(), out.data());
    expectClose(out, wantOut, "forward");
    linear.backwardData(n, f, k, dOut.data(), weight.data(), dIn.data());
    expectClose(dIn, wantDIn, "backward data");
    linear.backwardWeights(n, f, k, in.data(), dOut.data(), dW.data(),
                           dB.data());
    expectClose(dW, wantDW, "backward weights");
    expectClose(dB, wantDB, "backward bias");
  }
}

TEST(Kernels, ReluMatchesDefinition) {
  ReluKernels &relu = cpuKernels<ReluKernels>();
  std::mt19937 rng(4);
  auto in = randomBuffer(1000, rng), dOut = randomBuffer(1000, rng);
  std::vector<float> out(1000), dIn(1000), wantOut(1000), wantDIn(1000);
  for (int i = 0; i < 1000; ++i) {
    wantOut[i] = std::max(in[i], 0.f);
    wantDIn[i] = in[i] > 0 ? dOut[i] : 0.f;
  }
  relu.forward(1000, in.data(), out.data());
  expectClose(out, wantOut, "forward");
  relu.backward(1000, in.data(), dOut.data(), dIn.data());
  expectClose(dIn, wantDIn, "backward");
  // The runtime passes the output for the mask (a fused producer leaves
  // the input unwritten): the same gradient, zeros and NaN included.
  in[0] = -0.f;
  in[1] = std::numeric_limits<float>::quiet_NaN();
  in[2] = 0.f;
  relu.forward(1000, in.data(), out.data());
  std::vector<float> fromIn(1000), fromOut(1000);
  relu.backward(1000, in.data(), dOut.data(), fromIn.data());
  relu.backward(1000, out.data(), dOut.data(), fromOut.data());
  for (int i = 0; i < 1000; ++i)
    EXPECT_EQ(fromIn[i], fromOut[i]) << i;
}

// A NaN or an infinity must reach the loss, where the runtime reports it.
TEST(Kernels, ReluPropagatesNonFiniteValues) {
  const float nan = std::numeric_limits<float>::quiet_NaN(),
              inf = std::numeric_limits<float>::infinity();
  std::vector<float> in = {nan, inf, -inf, -1.f, 2.f}, out(in.size());
  cpuKernels<ReluKernels>().forward(int64_t(in.size()), in.data(), out.data());
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_EQ(out[1], inf);
  EXPECT_EQ(out[2], 0.f);
  EXPECT_EQ(out[3], 0.f);
  EXPECT_EQ(out[4], 2.f);
}
