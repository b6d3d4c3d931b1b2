//===- ChannelOpsTest.cpp - layer norm, channel shuffle against oracles ---===//
//
// The CPU kernels of runtime/kernels/LayerNorm/ and ChannelShuffle/.
// Oracles: layer norm over the channels of each pixel written out in double
// from its definition, central finite differences of it for the gradients,
// and the channel shuffle as PyTorch writes it (a view as n x g x C/g x hw,
// the transpose of dims 1 and 2) indexed directly.
//
//===----------------------------------------------------------------------===//

#include "kernels/ChannelShuffle/ChannelShuffleKernels.h"
#include "kernels/LayerNorm/LayerNormKernels.h"

#include "CpuKernels.h"
#include "RandomBuffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace hdrt;

namespace {

constexpr int64_t kN = 2, kC = 6, kHW = 5;
constexpr double kEps = 1e-5;

size_t at(int64_t s, int64_t ch, int64_t i, int64_t c = kC) {
  return size_t((s * c + ch) * kHW + i);
}

/// y = layer norm of x over the channels of each pixel, in double.
std::vector<double> definition(const std::vector<double> &x,
                               const std::vector<double> &scale,
                               const std::vector<double> &shift) {
  std::vector<double> y(x.size());
  for (int64_t s = 0; s < kN; ++s)
    for (int64_t i = 0; i < kHW; ++i) {
      double mean = 0, var = 0;
      for (int64_t ch = 0; ch < kC; ++ch)
        mean += x[at(s, ch, i)] / kC;
      for (int64_t ch = 0; ch < kC; ++ch)
        var += (x[at(s, ch, i)] - mean) * (x[at(s, ch, i)] - mean) / kC;
      for (int64_t ch = 0; ch < kC; ++ch)
        y[at(s, ch, i)] = (x[at(s, ch, i)] - mean) / std::sqrt(var + kEps) *
                              scale[size_t(ch)] +
                          shift[size_t(ch)];
    }
  return y;
}

/// The loss sum(dy * y) whose gradients the backward computes.
double loss(const std::vector<double> &x, const std::vector<double> &scale,
            const std::vector<double> &shift, const std::vector<double> &dy) {
  std::vector<double> y = definition(x, scale, shift);
  double l = 0;
  for (size_t i = 0; i < y.size(); ++i)
    l += dy[i] * y[i];
  return l;
}

/// d loss / d v[i] by central differences.
template <typename F>
double derivative(std::vector<double> &v, size_t i, F f) {
  double h = 1e-6, saved = v[i];
  v[i] = saved + h;
  double up = f();
  v[i] = saved - h;
  double down = f();
  v[i] = saved;
  return (up - down) / (2 * h);
}

std::vector<double> widen(const std::vector<float> &v) {
  return {v.begin(), v.end()};
}

/// The channels [lo, hi) of an n x C x hw tensor, as a tile holds them.
std::vector<float> channels(const std::vector<float> &v, int64_t lo,
                            int64_t hi) {
  std::vector<float> out;
  for (int64_t s = 0; s < kN; ++s)
    for (int64_t ch = lo; ch < hi; ++ch)
      for (int64_t i = 0; i < kHW; ++i)
        out.push_back(v[at(s, ch, i)]);
  return out;
}

} // namespace

// Two tiles split the channels 4 + 2, as a c-split layer does: each sums
// its channels of each pixel, the sums are added (the all-reduce), and each
// normalizes and differentiates its own channels. The tiles' partial sums
// share one buffer, NaN at first: the kernels overwrite it.
TEST(ChannelOps, LayerNormSplitAlongChannelsMatchesDefinitionAndGradients) {
  LayerNormKernels &ln = cpuKernels<LayerNormKernels>();
  std::mt19937 rng(11);
  std::vector<float> x = randomBuffer(kN * kC * kHW, rng, -2, 3);
  std::vector<float> dy = randomBuffer(x.size(), rng);
  std::vector<float> scale = randomBuffer(kC, rng, 0.5, 1.5);
  std::vector<float> shift = randomBuffer(kC, rng);
  const int64_t bounds[] = {0, 4, kC};
  int64_t pixels = kN * kHW;

  std::vector<double> sums(2 * pixels, 0.0),
      part(2 * pixels, std::numeric_limits<double>::quiet_NaN());
  for (int t = 0; t < 2; ++t) {
    std::vector<float> xt = channels(x, bounds[t], bounds[t + 1]);
    ln.partialSums(kN, bounds[t + 1] - bounds[t], kHW, xt.data(), part.data());
    for (size_t i = 0; i < sums.size(); ++i)
      sums[i] += part[i];
  }
  std::vector<double> xd = widen(x), scaleD = widen(scale),
                      shiftD = widen(shift), dyD = widen(dy);
  std::vector<double> want = definition(xd, scaleD, shiftD);

  std::vector<float> mean(pixels), invStd(pixels);
  std::vector<std::vector<float>> tileY(2), tileX(2), tileDy(2);
  for (int t = 0; t < 2; ++t) {
    int64_t lo = bounds[t], c = bounds[t + 1] - lo;
    tileX[t] = channels(x, lo, lo + c);
    tileDy[t] = channels(dy, lo, lo + c);
    tileY[t].resize(tileX[t].size());
    ln.forward(kN, c, kHW, kC, kEps, sums.data(), tileX[t].data(),
               scale.data() + lo, shift.data() + lo, mean.data(), invStd.data(),
               tileY[t].data());
    for (int64_t s = 0; s < kN; ++s)
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t i = 0; i < kHW; ++i)
          EXPECT_NEAR(tileY[t][at(s, ch, i, c)], want[at(s, lo + ch, i)],
                      1e-5)
              << "tile " << t << " sample " << s << " channel " << ch;
  }

  // Backward: the per-pixel sums of both tiles, then each tile's part.
  std::fill(sums.begin(), sums.end(), 0.0);
  for (int t = 0; t < 2; ++t) {
    int64_t lo = bounds[t], c = bounds[t + 1] - lo;
    ln.backwardPartialSums(kN, c, kHW, tileX[t].data(), tileDy[t].data(),
                           mean.data(), invStd.data(), scale.data() + lo,
                           part.data());
    for (size_t i = 0; i < sums.size(); ++i)
      sums[i] += part[i];
  }
  auto f = [&] { return loss(xd, scaleD, shiftD, dyD); };
  for (int t = 0; t < 2; ++t) {
    int64_t lo = bounds[t], c = bounds[t + 1] - lo;
    std::vector<float> dx(tileX[t].size()), dScale(c), dShift(c);
    ln.backward(kN, c, kHW, kC, tileX[t].data(), tileDy[t].data(), mean.data(),
                invStd.data(), scale.data() + lo, sums.data(), dx.data(),
                dScale.data(), dShift.data());
    for (int64_t ch = 0; ch < c; ++ch) {
      EXPECT_NEAR(dScale[ch], derivative(scaleD, size_t(lo + ch), f), 1e-4);
      EXPECT_NEAR(dShift[ch], derivative(shiftD, size_t(lo + ch), f), 1e-4);
      for (int64_t s = 0; s < kN; ++s)
        for (int64_t i = 0; i < kHW; ++i)
          EXPECT_NEAR(dx[at(s, ch, i, c)], derivative(xd, at(s, lo + ch, i), f),
                      1e-4)
              << "tile " << t << " sample " << s << " channel " << ch;
    }
  }
}

TEST(ChannelOps, ShuffleIsPyTorchsViewTransposeAndItsInverseUndoesIt) {
  ChannelShuffleKernels &shuffle = cpuKernels<ChannelShuffleKernels>();
  std::mt19937 rng(3);
  for (int64_t groups : {1, 2, 3, 6}) {
    std::vector<float> x = randomBuffer(kN * kC * kHW, rng), y(x.size()),
                       back(x.size());
    shuffle.shuffle(kN, kC, kHW, groups, x.data(), y.data());
    // x viewed as n x g x C/g x hw, dims 1 and 2 swapped: y[s][k][g][i] =
    // x[s][g][k][i].
    int64_t perGroup = kC / groups;
    for (int64_t s = 0; s < kN; ++s)
      for (int64_t g = 0; g < groups; ++g)
        for (int64_t k = 0; k < perGroup; ++k)
          for (int64_t i = 0; i < kHW; ++i)
            ASSERT_EQ(y[at(s, k * groups + g, i)],
                      x[at(s, g * perGroup + k, i)])
                << "groups " << groups;
    shuffle.shuffle(kN, kC, kHW, perGroup, y.data(), back.data());
    EXPECT_EQ(back, x) << "groups " << groups;
  }
}
