//===- TileOpsTest.cpp - split statistics equal the whole tensor ----------===//
//
// The CPU kernels whose result on a tile depends on other tiles (batch
// norm, softmax cross-entropy), or must not depend on the split (dropout),
// with add's fused ReLU and the SGD step. Oracles: the unsplit computation
// by its definition (in double), finite differences for gradients, and the
// same tensor split differently.
//
// The partial-sum kernels overwrite their output; the tests add up the
// tiles' parts themselves, as the executor's all-reduce does, and hand each
// call a reused buffer holding NaN, so that a kernel that added to (or took
// the max with) what was there would fail them.
//
//===----------------------------------------------------------------------===//

#include "kernels/Add/AddKernels.h"
#include "kernels/BatchNorm/BatchNormKernels.h"
#include "kernels/Dropout/DropoutKernels.h"
#include "kernels/Relu/ReluKernels.h"
#include "kernels/Sgd/SgdKernels.h"
#include "kernels/SoftmaxCrossEntropy/SoftmaxCrossEntropyKernels.h"

#include "BlockedLayout.h"
#include "CpuKernels.h"
#include "RandomBuffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

using namespace hdrt;

namespace {

/// A buffer for a kernel's partial result: NaN, what no kernel that
/// overwrites it leaves behind.
template <typename T> std::vector<T> stale(size_t n) {
  return std::vector<T>(n, std::numeric_limits<T>::quiet_NaN());
}

/// The all-reduce of partial sums: total += part.
void accumulate(std::vector<double> &total, const std::vector<double> &part) {
  for (size_t i = 0; i < total.size(); ++i)
    total[i] += part[i];
}

constexpr int64_t N = 4, C = 3;
constexpr double Eps = 1e-5;
/// The image size (rows x columns) where a test does not choose one.
constexpr int64_t ShortRows = 5;

/// Batch norm of the whole tensor by the definition, in double.
std::vector<double> batchNormReference(const std::vector<double> &x,
                                       const std::vector<float> &scale,
                                       const std::vector<float> &shift,
                                       int64_t HW = ShortRows) {
  std::vector<double> y(x.size());
  for (int64_t c = 0; c < C; ++c) {
    double mean = 0, var = 0;
    for (int64_t s = 0; s < N; ++s)
      for (int64_t i = 0; i < HW; ++i)
        mean += x[(s * C + c) * HW + i];
    mean /= N * HW;
    for (int64_t s = 0; s < N; ++s)
      for (int64_t i = 0; i < HW; ++i)
        var += std::pow(x[(s * C + c) * HW + i] - mean, 2);
    var /= N * HW;
    for (int64_t s = 0; s < N; ++s)
      for (int64_t i = 0; i < HW; ++i) {
        size_t k = (s * C + c) * HW + i;
        y[k] = scale[c] * (x[k] - mean) / std::sqrt(var + Eps) + shift[c];
      }
  }
  return y;
}

/// Batch norm with the sample dim split in two tiles, through the kernels.
void batchNormSplit(const std::vector<float> &x,
                    const std::vector<float> &scale,
                    const std::vector<float> &shift,
                    const std::vector<float> &dy, std::vector<float> &y,
                    std::vector<float> &dx, int64_t HW = ShortRows) {
  BatchNormKernels &bn = cpuKernels<BatchNormKernels>();
  int64_t half = 3; // uneven: samples [0, 3) and [3, 4)
  // Sums, then sums of squares (or of dy, then of dy * xhat), per channel.
  std::vector<double> sums(2 * C, 0.0), gradSums(2 * C, 0.0);
  std::vector<double> part = stale<double>(2 * C);
  bn.partialSums(half, C, HW, /*block=*/1, x.data(), part.data());
  accumulate(sums, part);
  bn.partialSums(N - half, C, HW, /*block=*/1, x.data() + half * C * HW,
                 part.data());
  accumulate(sums, part);
  std::vector<float> mean(C), invStd(C);
  bn.statistics(C, N * HW, Eps, sums.data(), mean.data(), invStd.data());
  bn.forward(half, C, HW, /*block=*/1, x.data(), mean.data(), invStd.data(),
             scale.data(), shift.data(), y.data(), /*relu=*/false);
  bn.forward(N - half, C, HW, /*block=*/1, x.data() + half * C * HW,
             mean.data(), invStd.data(), scale.data(), shift.data(),
             y.data() + half * C * HW, /*relu=*/false);
  for (int64_t first : {int64_t(0), half}) {
    int64_t n = first == 0 ? half : N - half;
    bn.backwardPartialSums(n, C, HW, /*block=*/1, x.data() + first * C * HW,
                           dy.data() + first * C * HW, mean.data(),
                           invStd.data(), part.data());
    accumulate(gradSums, part);
  }
  for (int64_t first : {int64_t(0), half}) {
    int64_t n = first == 0 ? half : N - half;
    bn.backwardData(n, C, HW, /*block=*/1, N * HW, x.data() + first * C * HW,
                    dy.data() + first * C * HW, mean.data(), invStd.data(),
                    scale.data(), gradSums.data(), dx.data() + first * C * HW);
  }
}

/// The input gradient by the closed form, in double: scale / sigma *
/// (dy - mean(dy) - xhat * mean(dy * xhat)) per channel.
std::vector<double> batchNormBackwardReference(const std::vector<float> &x,
                                               const std::vector<float> &scale,
                                               const std::vector<float> &dy,
                                               int64_t HW) {
  std::vector<double> dx(x.size());
  int64_t count = N * HW;
  auto at = [&](int64_t s, int64_t c, int64_t i) {
    return (s * C + c) * HW + i;
  };
  for (int64_t c = 0; c < C; ++c) {
    double mean = 0, var = 0, meanDy = 0, meanDyXhat = 0;
    for (int64_t s = 0; s < N; ++s)
      for (int64_t i = 0; i < HW; ++i)
        mean += x[at(s, c, i)];
    mean /= count;
    for (int64_t s = 0; s < N; ++s)
      for (int64_t i = 0; i < HW; ++i)
        var += std::pow(x[at(s, c, i)] - mean, 2);
    double invStd = 1 / std::sqrt(var / count + Eps);
    for (int64_t s = 0; s < N; ++s)
      for (int64_t i = 0; i < HW; ++i) {
        meanDy += dy[at(s, c, i)];
        meanDyXhat += dy[at(s, c, i)] * (x[at(s, c, i)] - mean) * invStd;
      }
    meanDy /= count;
    meanDyXhat /= count;
    for (int64_t s = 0; s < N; ++s)
      for (int64_t i = 0; i < HW; ++i) {
        double xhat = (x[at(s, c, i)] - mean) * invStd;
        dx[at(s, c, i)] = scale[c] * invStd *
                          (dy[at(s, c, i)] - meanDy - xhat * meanDyXhat);
      }
  }
  return dx;
}

} // namespace

TEST(TileOps, BatchNormSplitEqualsWholeAndFiniteDifferences) {
  constexpr int64_t HW = ShortRows;
  std::mt19937 rng(1);
  auto x = randomBuffer(N * C * HW, rng), dy = randomBuffer(N * C * HW, rng);
  auto scale = randomBuffer(C, rng, 0.5, 1.5), shift = randomBuffer(C, rng);
  std::vector<float> y(x.size()), dx(x.size());
  batchNormSplit(x, scale, shift, dy, y, dx);
  std::vector<double> xd(x.begin(), x.end());
  std::vector<double> want = batchNormReference(xd, scale, shift);
  for (size_t i = 0; i < y.size(); ++i)
    EXPECT_NEAR(y[i], want[i], 1e-4) << i;
  // d(sum dy * y)/dx by central differences of the reference.
  for (size_t i = 0; i < x.size(); ++i) {
    double h = 1e-4;
    auto plus = xd, minus = xd;
    plus[i] += h;
    minus[i] -= h;
    auto yp = batchNormReference(plus, scale, shift);
    auto ym = batchNormReference(minus, scale, shift);
    double fd = 0;
    for (size_t k = 0; k < x.size(); ++k)
      fd += dy[k] * (yp[k] - ym[k]) / (2 * h);
    EXPECT_NEAR(dx[i], fd, 2e-3) << i;
  }
}

/// Rows of 67 values, around a mean 100 times their spread: the kernels'
/// vector loops and their remainders, and the cancellation a large mean
/// would cost a kernel that expanded (x - mean) * k into x * k - mean * k.
TEST(TileOps, BatchNormOnLongRowsWithALargeMeanMatchesTheDefinition) {
  constexpr int64_t HW = 67;
  std::mt19937 rng(2);
  auto x = randomBuffer(N * C * HW, rng, 99, 101);
  // A gradient that follows x, as a loss's does: mean(dy * xhat) is then
  // far from 0, and so is the factor of (x - mean) in dx.
  auto dy = randomBuffer(N * C * HW, rng);
  for (size_t i = 0; i < dy.size(); ++i)
    dy[i] += 2 * (x[i] - 100);
  auto scale = randomBuffer(C, rng, 0.5, 1.5), shift = randomBuffer(C, rng);
  std::vector<float> y(x.size()), dx(x.size());
  batchNormSplit(x, scale, shift, dy, y, dx, HW);
  std::vector<double> want = batchNormReference(
      std::vector<double>(x.begin(), x.end()), scale, shift, HW);
  std::vector<double> wantDx = batchNormBackwardReference(x, scale, dy, HW);
  for (size_t i = 0; i < y.size(); ++i)
    EXPECT_NEAR(y[i], want[i], 1e-4) << i;
  // dx is up to about 3 here. The float mean alone costs up to 1.6e-5;
  // the expanded form 3e-5.
  for (size_t i = 0; i < dx.size(); ++i)
    EXPECT_NEAR(dx[i], wantDx[i], 2e-5) << i;
}

// The blocked loops against the NCHW ones (themselves held to the
// definition above) on the same tensors, split over samples as a step
// splits them: 3 channel blocks, rows with a vector remainder, a mean
// away from 0.
TEST(TileOps, BlockedBatchNormMatchesNchw) {
  for (int64_t B : {8, 16}) {
    SCOPED_TRACE(::testing::Message() << "nChw" << B << "c");
    const int64_t n = 3, c = 3 * B, hw = 13, count = n * hw;
    std::mt19937 rng{unsigned(B)};
    auto x = randomBuffer(n * c * hw, rng, 1, 3);
    auto dy = randomBuffer(n * c * hw, rng);
    auto scale = randomBuffer(c, rng, 0.5, 1.5), shift = randomBuffer(c, rng);
    BatchNormKernels &bn = cpuKernels<BatchNormKernels>();
    // Both layouts: sums, statistics, forward, backward sums, backward data.
    auto run = [&](int64_t block, std::vector<double> &sums,
                   std::vector<double> &gradSums, std::vector<float> &y,
                   std::vector<float> &dx) {
      auto bx = toBlocked(x, n, c, hw, block);
      auto bdy = toBlocked(dy, n, c, hw, block);
      sums.assign(2 * c, 0);
      gradSums.assign(2 * c, 0);
      std::vector<double> part = stale<double>(2 * c);
      int64_t first = 2; // samples [0, 2) and [2, 3): separate tiles
      int64_t parts[][2] = {{0, first}, {first, n - first}};
      for (auto [s0, ns] : parts) {
        bn.partialSums(ns, c, hw, block, bx.data() + s0 * c * hw, part.data());
        accumulate(sums, part);
      }
      std::vector<float> mean(c), invStd(c);
      bn.statistics(c, count, Eps, sums.data(), mean.data(), invStd.data());
      std::vector<float> by(bx.size()), bdx(bx.size());
      for (auto [s0, ns] : parts) {
        int64_t o = s0 * c * hw;
        bn.forward(ns, c, hw, block, bx.data() + o, mean.data(), invStd.data(),
                   scale.data(), shift.data(), by.data() + o,
                   /*relu=*/false);
        bn.backwardPartialSums(ns, c, hw, block, bx.data() + o, bdy.data() + o,
                               mean.data(), invStd.data(), part.data());
        accumulate(gradSums, part);
      }
      for (auto [s0, ns] : parts) {
        int64_t o = s0 * c * hw;
        bn.backwardData(ns, c, hw, block, count, bx.data() + o, bdy.data() + o,
                        mean.data(), invStd.data(), scale.data(),
                        gradSums.data(), bdx.data() + o);
      }
      y = fromBlocked(by, n, c, hw, block);
      dx = fromBlocked(bdx, n, c, hw, block);
    };
    std::vector<double> sums, gradSums, wantSums, wantGradSums;
    std::vector<float> y, dx, wantY, wantDx;
    run(1, wantSums, wantGradSums, wantY, wantDx);
    run(B, sums, gradSums, y, dx);
    for (int64_t i = 0; i < 2 * c; ++i) {
      EXPECT_NEAR(sums[i], wantSums[i], 1e-9 * (1 + std::abs(wantSums[i])));
      EXPECT_NEAR(gradSums[i], wantGradSums[i], 1e-9) << i;
    }
    for (size_t i = 0; i < y.size(); ++i) {
      EXPECT_NEAR(y[i], wantY[i], 1e-5) << i;
      EXPECT_NEAR(dx[i], wantDx[i], 1e-5) << i;
    }
  }
}

// Batch norm with its ReLU in one pass writes what the two passes write,
// bit for bit, in either layout: NaN stays NaN, as the ReLU kernel keeps
// it.
TEST(TileOps, BatchNormWithReluIsTheReluOfBatchNorm) {
  BatchNormKernels &bn = cpuKernels<BatchNormKernels>();
  for (int64_t block : {1, 8, 16}) {
    SCOPED_TRACE(::testing::Message() << "block " << block);
    const int64_t n = 2, c = 32, hw = 11;
    std::mt19937 rng{unsigned(block)};
    auto x = randomBuffer(n * c * hw, rng);
    x[5] = std::nanf("");
    auto mean = randomBuffer(c, rng, -0.2f, 0.2f);
    auto invStd = randomBuffer(c, rng, 0.5, 2);
    auto scale = randomBuffer(c, rng, 0.5, 1.5), shift = randomBuffer(c, rng);
    std::vector<float> y(x.size()), twoPasses(x.size()), fused(x.size());
    bn.forward(n, c, hw, block, x.data(), mean.data(), invStd.data(),
               scale.data(), shift.data(), y.data(), /*relu=*/false);
    cpuKernels<ReluKernels>().forward(int64_t(y.size()), y.data(),
                                      twoPasses.data());
    bn.forward(n, c, hw, block, x.data(), mean.data(), invStd.data(),
               scale.data(), shift.data(), fused.data(), /*relu=*/true);
    int negative = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      negative += y[i] < 0;
      if (std::isnan(twoPasses[i]))
        EXPECT_TRUE(std::isnan(fused[i])) << i;
      else
        EXPECT_EQ(fused[i], twoPasses[i]) << i;
    }
    EXPECT_GT(negative, 0) << "no value for the ReLU to clip";
    EXPECT_TRUE(std::isnan(fused[5])) << "the NaN vanished";
  }
}

// The same for a residual add and its ReLU.
TEST(TileOps, AddWithReluIsTheReluOfTheSum) {
  std::mt19937 rng(9);
  const int64_t count = 70000; // several chunks, a remainder
  auto a = randomBuffer(count, rng), b = randomBuffer(count, rng);
  a[3] = std::nanf("");
  std::vector<float> sum(count), twoPasses(count), fused(count);
  AddKernels &add = cpuKernels<AddKernels>();
  add.forward(count, a.data(), b.data(), sum.data(), /*relu=*/false);
  cpuKernels<ReluKernels>().forward(count, sum.data(), twoPasses.data());
  add.forward(count, a.data(), b.data(), fused.data(), /*relu=*/true);
  for (int64_t i = 0; i < count; ++i) {
    if (i != 3) {
      EXPECT_EQ(fused[i], twoPasses[i]) << i;
    }
  }
  EXPECT_TRUE(std::isnan(fused[3])) << "the NaN vanished";
  EXPECT_GT(std::count(fused.begin(), fused.end(), 0.f), count / 4);
}

// A layout the loops do not have is refused, not misread.
TEST(TileOps, BatchNormRefusesAnUnknownBlock) {
  std::vector<float> x(2 * 24 * 4);
  std::vector<double> sums(48);
  BatchNormKernels &bn = cpuKernels<BatchNormKernels>();
  EXPECT_THROW(bn.partialSums(2, 24, 4, 16, x.data(), sums.data()),
               std::invalid_argument);
  EXPECT_THROW(bn.partialSums(2, 24, 4, 4, x.data(), sums.data()),
               std::invalid_argument);
}

TEST(TileOps, SoftmaxCrossEntropySplitOverClassesEqualsWhole) {
  std::mt19937 rng(2);
  constexpr int64_t n = 5, k = 7, batch = 5;
  auto logits = randomBuffer(n * k, rng, -3, 3);
  std::vector<int32_t> labels = {0, 6, 3, 2, 5};
  // The definition.
  double wantLoss = 0;
  std::vector<double> wantGrad(n * k);
  for (int64_t s = 0; s < n; ++s) {
    double z = 0;
    for (int64_t j = 0; j < k; ++j)
      z += std::exp(double(logits[s * k + j]));
    wantLoss -= std::log(std::exp(double(logits[s * k + labels[s]])) / z);
    for (int64_t j = 0; j < k; ++j)
      wantGrad[s * k + j] = (std::exp(double(logits[s * k + j])) / z -
                             (j == labels[s] ? 1 : 0)) /
                            batch;
  }
  wantLoss /= batch;
  // Classes split in three uneven tiles: [0, 3), [3, 5), [5, 7).
  const int64_t bounds[] = {0, 3, 5, 7};
  std::vector<std::vector<float>> tiles(3);
  for (int t = 0; t < 3; ++t)
    for (int64_t s = 0; s < n; ++s)
      for (int64_t j = bounds[t]; j < bounds[t + 1]; ++j)
        tiles[t].push_back(logits[s * k + j]);
  // Each tile's maxima and sums, combined as the all-reduces combine them.
  SoftmaxCrossEntropyKernels &sce = cpuKernels<SoftmaxCrossEntropyKernels>();
  std::vector<float> max(n, -INFINITY), tileMax = stale<float>(n);
  std::vector<double> sum(n, 0), tileSum = stale<double>(n);
  for (int t = 0; t < 3; ++t) {
    sce.partialMax(n, bounds[t + 1] - bounds[t], tiles[t].data(),
                   tileMax.data());
    for (int64_t s = 0; s < n; ++s)
      max[s] = std::max(max[s], tileMax[s]);
  }
  for (int t = 0; t < 3; ++t) {
    sce.partialSum(n, bounds[t + 1] - bounds[t], tiles[t].data(), max.data(),
                   tileSum.data());
    accumulate(sum, tileSum);
  }
  double loss = 0;
  for (int t = 0; t < 3; ++t) {
    double tileLoss = 0;
    sce.partialLoss(n, bounds[t + 1] - bounds[t], bounds[t], tiles[t].data(),
                    labels.data(), max.data(), sum.data(), &tileLoss);
    loss += tileLoss;
  }
  EXPECT_NEAR(loss / batch, wantLoss, 1e-6);
  for (int t = 0; t < 3; ++t) {
    int64_t width = bounds[t + 1] - bounds[t];
    std::vector<float> grad(n * width);
    sce.backward(n, width, bounds[t], batch, tiles[t].data(), labels.data(),
                 max.data(), sum.data(), grad.data());
    for (int64_t s = 0; s < n; ++s)
      for (int64_t j = 0; j < width; ++j)
        EXPECT_NEAR(grad[s * width + j], wantGrad[s * k + bounds[t] + j],
                    1e-6);
  }
}

TEST(TileOps, DropoutMaskDoesNotDependOnTheSplit) {
  DropoutKernels &dropout = cpuKernels<DropoutKernels>();
  std::mt19937 rng(3);
  TileRegion whole;
  whole.rank = 4;
  int64_t shape[] = {4, 6, 5, 3};
  for (int d = 0; d < 4; ++d) {
    whole.shape[d] = shape[d];
    whole.hi[d] = shape[d];
  }
  auto in = randomBuffer(whole.volume(), rng, 0.5, 1.5);
  std::vector<float> out(in.size());
  dropout.apply(whole, 42, 7, 0.3f, in.data(), out.data());
  int64_t dropped = std::count(out.begin(), out.end(), 0.0f);
  EXPECT_NEAR(double(dropped) / out.size(), 0.3, 0.08);
  // The tile n in [1, 3), c in [2, 6), h in [1, 4), all w.
  TileRegion tile = whole;
  tile.lo[0] = 1, tile.hi[0] = 3, tile.lo[1] = 2, tile.lo[2] = 1,
  tile.hi[2] = 4;
  std::vector<float> tileIn, tileOut(tile.volume());
  for (int64_t a = 1; a < 3; ++a)
    for (int64_t b = 2; b < 6; ++b)
      for (int64_t y = 1; y < 4; ++y)
        for (int64_t x = 0; x < 3; ++x)
          tileIn.push_back(in[((a * 6 + b) * 5 + y) * 3 + x]);
  dropout.apply(tile, 42, 7, 0.3f, tileIn.data(), tileOut.data());
  size_t i = 0;
  for (int64_t a = 1; a < 3; ++a)
    for (int64_t b = 2; b < 6; ++b)
      for (int64_t y = 1; y < 4; ++y)
        for (int64_t x = 0; x < 3; ++x)
          EXPECT_EQ(tileOut[i++], out[((a * 6 + b) * 5 + y) * 3 + x]);
  // Another layer draws another mask.
  std::vector<float> other(in.size());
  dropout.apply(whole, 42, 8, 0.3f, in.data(), other.data());
  EXPECT_NE(other, out);
}

TEST(TileOps, SgdWithMomentumAndWeightDecay) {
  std::vector<float> p = {1.0f, -2.0f}, g = {0.5f, 0.25f}, v = {0.1f, 0.0f};
  cpuKernels<SgdKernels>().update(2, 0.1f, 0.9f, 0.01f, /*nesterov=*/false,
                                  p.data(), g.data(), v.data());
  // d = g + 0.01 p; v = 0.9 v + d; p -= 0.1 v
  EXPECT_FLOAT_EQ(v[0], 0.9f * 0.1f + (0.5f + 0.01f * 1.0f));
  EXPECT_FLOAT_EQ(p[0], 1.0f - 0.1f * v[0]);
  EXPECT_FLOAT_EQ(v[1], 0.25f + 0.01f * -2.0f);
  EXPECT_FLOAT_EQ(p[1], -2.0f - 0.1f * v[1]);
}

TEST(TileOps, SgdWithNesterovMomentum) {
  std::vector<float> p = {1.0f, -2.0f}, g = {0.5f, 0.25f}, v = {0.1f, 0.0f};
  cpuKernels<SgdKernels>().update(2, 0.1f, 0.9f, 0.01f, /*nesterov=*/true,
                                  p.data(), g.data(), v.data());
  // As above, but the step is d + 0.9 v (the velocity looked ahead).
  for (int i = 0; i < 2; ++i) {
    float d = g[i] + 0.01f * (i == 0 ? 1.0f : -2.0f);
    float v0 = i == 0 ? 0.1f : 0.0f;
    EXPECT_FLOAT_EQ(v[i], 0.9f * v0 + d);
    EXPECT_FLOAT_EQ(p[i], (i == 0 ? 1.0f : -2.0f) - 0.1f * (d + 0.9f * v[i]));
  }
}

TEST(TileOps, BatchNormRunningStatisticsAsPyTorch) {
  // Channel 0 saw {1, 2, 3, 6}: mean 3, biased variance 3.5, unbiased 14/3.
  // Channel 1 saw {-1, -1, -1, -1}: mean -1, variance 0.
  // The sums, then the sums of squares.
  std::vector<double> sums = {12, -4, 50, 4};
  std::vector<float> mean = {0.5f, 0}, var = {2, 1};
  BatchNormKernels &bn = cpuKernels<BatchNormKernels>();
  bn.runningUpdate(2, 4, 0.9, sums.data(), mean.data(), var.data());
  EXPECT_FLOAT_EQ(mean[0], 0.9f * 0.5f + 0.1f * 3);
  EXPECT_FLOAT_EQ(var[0], 0.9f * 2 + 0.1f * 14.0f / 3);
  EXPECT_FLOAT_EQ(mean[1], 0.1f * -1);
  EXPECT_FLOAT_EQ(var[1], 0.9f);
  std::vector<float> invStd(2);
  bn.runningInvStd(2, 1e-5, var.data(), invStd.data());
  for (int ch = 0; ch < 2; ++ch)
    EXPECT_FLOAT_EQ(invStd[ch], 1 / std::sqrt(var[ch] + 1e-5f));
}
