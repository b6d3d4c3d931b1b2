//===- WindowTilesTest.cpp - tiles of window layers add up to the layer ---===//
//
// Every configuration's tiles, each run by the oneDNN kernels on its own
// input box (halos included), reproduce the whole layer: outputs assemble
// into the whole output, input gradients add up (summing where halos
// overlap) to the whole input gradient, and weight gradients of replicas
// add up to the whole weight gradient. This is parallel == serial for
// convolutions, before any process is involved.
//
//===----------------------------------------------------------------------===//

#include "hd/Tiling/ParallelConfig.h"
#include "hd/Tiling/TileBox.h"
#include "hdrt/common/WindowTiles.h"
#include "hdrt/cpu/Kernels.h"

#include "RandomBuffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace hdrt;
using namespace hdrt::cpu;

namespace {

Box boxOf(const hd::TileBox &t) {
  Box b;
  b.rank = static_cast<int>(t.rank());
  for (int d = 0; d < b.rank; ++d) {
    b.lo[d] = t[d].lo;
    b.hi[d] = t[d].hi;
  }
  return b;
}

Box whole(std::vector<int64_t> shape) {
  return boxOf(hd::TileBox::whole(shape));
}

double worstError(const std::vector<float> &a, const std::vector<float> &b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, double(std::abs(a[i] - b[i])) / (1 + std::abs(b[i])));
  return worst;
}

} // namespace

TEST(ConvTile, TilesReproduceTheWholeLayer) {
  std::mt19937 rng(9);
  std::vector<Conv2dLayer> layers = {
      {2, 3, 11, 9, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   // 3x3 same
      {2, 4, 13, 13, 6, 5, 3, 2, 2, 2, 1, 1, 0, 1, 1, 2},  // strided, grouped
      {3, 2, 12, 10, 4, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1},  // dilated
      {2, 4, 9, 9, 4, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1},    // 1x1, stride 2
  };
  int configs = 0;
  for (const Conv2dLayer &l : layers) {
    std::vector<int64_t> inShape = {l.n, l.c, l.h, l.w};
    std::vector<int64_t> outShape = {l.n, l.k, l.outH(), l.outW()};
    int64_t taps = (l.c / l.groups) * l.kh * l.kw;
    auto in = randomBuffer(hd::numElements(inShape), rng);
    auto weight = randomBuffer(l.k * taps, rng);
    auto bias = randomBuffer(l.k, rng);
    auto dOut = randomBuffer(hd::numElements(outShape), rng);

    // The whole layer, one kernel call each, with the layer's own padding.
    Conv2dShape all{{l.n, l.c, l.h, l.w, l.kh, l.kw, l.strideH, l.strideW,
                     l.padTop, l.padLeft, l.padBottom, l.padRight,
                     l.dilationH, l.dilationW},
                    l.k,
                    l.groups};
    std::vector<float> out(dOut.size()), dIn(in.size()), dW(weight.size()),
        dB(l.k);
    conv2dForward(all, in.data(), weight.data(), bias.data(), out.data());
    conv2dBackwardData(all, dOut.data(), weight.data(), dIn.data());
    conv2dBackwardWeights(all, in.data(), dOut.data(), dW.data(), dB.data());

    for (const hd::ParallelConfig &config : hd::enumerateConfigs(outShape, 4)) {
      if (l.groups > 1 && l.groups % config.degrees[1] != 0)
        continue; // The verifier forbids channel splits that cut groups.
      std::vector<float> tiledOut(out.size(), 0), tiledDIn(in.size(), 0),
          tiledDW(weight.size(), 0), tiledDB(l.k, 0);
      for (int64_t t = 0; t < config.tasks(); ++t) {
        Box outBox = boxOf(hd::tileOfTask(outShape, config.degrees, t));
        ConvTile tile = convTile(l, outBox);
        std::vector<float> tin(tile.in.volume()), tout(outBox.volume()),
            tdOut(outBox.volume()), tdIn(tile.in.volume()),
            tdW(tile.shape.outChannels * taps), tdB(tile.shape.outChannels);
        copyRegion(in.data(), whole(inShape), tin.data(), tile.in, tile.in);
        copyRegion(dOut.data(), whole(outShape), tdOut.data(), outBox, outBox);
        const float *w = weight.data() + tile.firstOutChannel * taps;
        const float *b = bias.data() + tile.firstOutChannel;
        conv2dForward(tile.shape, tin.data(), w, b, tout.data());
        conv2dBackwardData(tile.shape, tdOut.data(), w, tdIn.data());
        conv2dBackwardWeights(tile.shape, tin.data(), tdOut.data(),
                              tdW.data(), tdB.data());
        copyRegion(tout.data(), outBox, tiledOut.data(), whole(outShape),
                   outBox);
        addRegion(tdIn.data(), tile.in, tiledDIn.data(), whole(inShape),
                  tile.in);
        for (size_t i = 0; i < tdW.size(); ++i)
          tiledDW[tile.firstOutChannel * taps + i] += tdW[i];
        for (size_t i = 0; i < tdB.size(); ++i)
          tiledDB[tile.firstOutChannel + i] += tdB[i];
      }
      std::string what = config.str();
      EXPECT_LT(worstError(tiledOut, out), 1e-5) << "forward " << what;
      EXPECT_LT(worstError(tiledDIn, dIn), 1e-4) << "backward data " << what;
      EXPECT_LT(worstError(tiledDW, dW), 1e-4) << "backward weights " << what;
      EXPECT_LT(worstError(tiledDB, dB), 1e-4) << "backward bias " << what;
      ++configs;
    }
  }
  EXPECT_GE(configs, 40);
}

// Pooling: max and average (with and without padding in the divisor), the
// tiles' outputs assemble into the whole output and their input gradients
// add up to the whole input gradient.
TEST(PoolTile, TilesReproduceTheWholeLayer) {
  std::mt19937 rng(10);
  std::vector<Pool2dLayer> layers = {
      {{2, 3, 11, 11, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1}, true, false},
      {{2, 4, 9, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, false, true},
      {{1, 4, 10, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1}, false, false},
      {{2, 4, 7, 7, 7, 7, 1, 1, 0, 0, 0, 0, 1, 1}, false, false}, // global
      {{2, 2, 8, 8, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1}, true, false},
  };
  int configs = 0;
  for (const Pool2dLayer &l : layers) {
    const Window2d &w = l.window;
    std::vector<int64_t> inShape = {w.n, w.c, w.h, w.w};
    std::vector<int64_t> outShape = {w.n, w.c, w.outH(), w.outW()};
    auto in = randomBuffer(hd::numElements(inShape), rng);
    auto dOut = randomBuffer(hd::numElements(outShape), rng);
    Pool2dShape all{w, l.max, l.countIncludePad};
    std::vector<float> out(dOut.size()), dIn(in.size());
    pool2dForward(all, in.data(), out.data());
    pool2dBackward(all, in.data(), dOut.data(), dIn.data());
    for (const hd::ParallelConfig &config :
         hd::enumerateConfigs(outShape, 4)) {
      std::vector<float> tiledOut(out.size(), 0), tiledDIn(in.size(), 0);
      for (int64_t t = 0; t < config.tasks(); ++t) {
        Box outBox = boxOf(hd::tileOfTask(outShape, config.degrees, t));
        PoolTile tile = poolTile(l, outBox);
        std::vector<float> tin(tile.in.volume()), tout(outBox.volume()),
            tdOut(outBox.volume()), tdIn(tile.in.volume());
        copyRegion(in.data(), whole(inShape), tin.data(), tile.in, tile.in);
        copyRegion(dOut.data(), whole(outShape), tdOut.data(), outBox,
                   outBox);
        pool2dForward(tile.shape, tin.data(), tout.data());
        pool2dBackward(tile.shape, tin.data(), tdOut.data(), tdIn.data());
        copyRegion(tout.data(), outBox, tiledOut.data(), whole(outShape),
                   outBox);
        addRegion(tdIn.data(), tile.in, tiledDIn.data(), whole(inShape),
                  tile.in);
      }
      EXPECT_LT(worstError(tiledOut, out), 1e-5) << "forward " << config.str();
      EXPECT_LT(worstError(tiledDIn, dIn), 1e-5)
          << "backward " << config.str();
      ++configs;
    }
  }
  EXPECT_GE(configs, 40);
}
