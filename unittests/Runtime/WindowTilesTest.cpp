//===- WindowTilesTest.cpp - tiles of window layers add up to the layer ---===//
//
// Every configuration's tiles (windowTile, hdrt/common/WindowTiles.h), each
// run by the CPU kernels on its own input box (halos included), reproduce
// the whole layer: outputs assemble into the whole output, input gradients
// add up (summing where halos overlap) to the whole input gradient, and
// weight gradients of replicas add up to the whole weight gradient. This is
// parallel == serial for convolutions and pooling, before any process is
// involved.
//
//===----------------------------------------------------------------------===//

#include "hd/Tiling/ParallelConfig.h"
#include "hd/Tiling/TileBox.h"
#include "hdrt/common/WindowTiles.h"
#include "kernels/Conv2d/Conv2dKernels.h"
#include "kernels/Pool2d/Pool2dKernels.h"

#include "CpuKernels.h"
#include "RandomBuffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace hdrt;

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
    worst =
        std::max(worst, double(std::abs(a[i] - b[i])) / (1 + std::abs(b[i])));
  return worst;
}

/// A convolution tile, with the group arithmetic of the executor
/// (exec/layers/Conv2d.cpp) restated: output channels [k0, k1) of a layer
/// of K outputs in G groups read every input channel of groups k0 / (K/G)
/// through (k1 - 1) / (K/G), and their weights are the rows from k0.
struct ConvTile {
  WindowTile window;
  Conv2dShape shape;
  int64_t firstOutChannel;
};

ConvTile convTile(const Conv2dShape &whole, const Box &out) {
  int64_t outPerGroup = whole.outChannels / whole.groups;
  int64_t inPerGroup = whole.window.c / whole.groups;
  int64_t firstGroup = out.lo[1] / outPerGroup;
  int64_t lastGroup = (out.hi[1] - 1) / outPerGroup + 1;
  ConvTile t;
  t.window = windowTile(whole.window, out, firstGroup * inPerGroup,
                        lastGroup * inPerGroup);
  t.shape.window = t.window.window;
  t.shape.outChannels = out.hi[1] - out.lo[1];
  t.shape.groups = lastGroup - firstGroup;
  t.firstOutChannel = out.lo[1];
  return t;
}

} // namespace

TEST(ConvTile, TilesReproduceTheWholeLayer) {
  Conv2dKernels &conv = cpuKernels<Conv2dKernels>();
  std::mt19937 rng(9);
  // Windows over the whole input, output channels, groups.
  std::vector<Conv2dShape> layers = {
      {{2, 3, 11, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, 4, 1},  // 3x3 same
      {{2, 4, 13, 13, 5, 3, 2, 2, 2, 1, 1, 0, 1, 1}, 6, 2}, // strided, grouped
      {{3, 2, 12, 10, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2}, 4, 1}, // dilated
      {{2, 4, 9, 9, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1}, 4, 1},   // 1x1, stride 2
  };
  int configs = 0;
  for (const Conv2dShape &l : layers) {
    const Window2d &lw = l.window;
    int64_t k = l.outChannels;
    std::vector<int64_t> inShape = {lw.n, lw.c, lw.h, lw.w};
    std::vector<int64_t> outShape = {lw.n, k, lw.outH(), lw.outW()};
    int64_t taps = (lw.c / l.groups) * lw.kh * lw.kw;
    auto in = randomBuffer(hd::numElements(inShape), rng);
    auto weight = randomBuffer(k * taps, rng);
    auto bias = randomBuffer(k, rng);
    auto dOut = randomBuffer(hd::numElements(outShape), rng);

    // The whole layer, one kernel call each, with the layer's own padding.
    std::vector<float> out(dOut.size()), dIn(in.size()), dW(weight.size()),
        dB(k);
    conv.forward(l, in.data(), weight.data(), bias.data(), out.data());
    conv.backwardData(l, dOut.data(), weight.data(), dIn.data());
    conv.backwardWeights(l, in.data(), dOut.data(), dW.data(), dB.data());

    for (const hd::ParallelConfig &config : hd::enumerateConfigs(outShape, 4)) {
      if (l.groups > 1 && l.groups % config.degrees[1] != 0)
        continue; // The verifier forbids channel splits that cut groups.
      std::vector<float> tiledOut(out.size(), 0), tiledDIn(in.size(), 0),
          tiledDW(weight.size(), 0), tiledDB(k, 0);
      for (int64_t t = 0; t < config.tasks(); ++t) {
        Box outBox = boxOf(hd::tileOfTask(outShape, config.degrees, t));
        ConvTile tile = convTile(l, outBox);
        const Box &inBox = tile.window.in;
        std::vector<float> tin(inBox.volume()), tout(outBox.volume()),
            tdOut(outBox.volume()), tdIn(inBox.volume()),
            tdW(tile.shape.outChannels * taps), tdB(tile.shape.outChannels);
        copyRegion(in.data(), whole(inShape), tin.data(), inBox, inBox);
        copyRegion(dOut.data(), whole(outShape), tdOut.data(), outBox, outBox);
        const float *w = weight.data() + tile.firstOutChannel * taps;
        const float *b = bias.data() + tile.firstOutChannel;
        conv.forward(tile.shape, tin.data(), w, b, tout.data());
        conv.backwardData(tile.shape, tdOut.data(), w, tdIn.data());
        conv.backwardWeights(tile.shape, tin.data(), tdOut.data(), tdW.data(),
                             tdB.data());
        copyRegion(tout.data(), outBox, tiledOut.data(), whole(outShape),
                   outBox);
        addRegion(tdIn.data(), inBox, tiledDIn.data(), whole(inShape), inBox);
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
  Pool2dKernels &pool = cpuKernels<Pool2dKernels>();
  std::mt19937 rng(10);
  std::vector<Pool2dShape> layers = {
      {{2, 3, 11, 11, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1}, true, false},
      {{2, 4, 9, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, false, true},
      {{1, 4, 10, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1}, false, false},
      {{2, 4, 7, 7, 7, 7, 1, 1, 0, 0, 0, 0, 1, 1}, false, false}, // global
      {{2, 2, 8, 8, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1}, true, false},
  };
  int configs = 0;
  for (const Pool2dShape &all : layers) {
    const Window2d &w = all.window;
    std::vector<int64_t> inShape = {w.n, w.c, w.h, w.w};
    std::vector<int64_t> outShape = {w.n, w.c, w.outH(), w.outW()};
    auto in = randomBuffer(hd::numElements(inShape), rng);
    auto dOut = randomBuffer(hd::numElements(outShape), rng);
    std::vector<float> out(dOut.size()), dIn(in.size());
    pool.forward(all, in.data(), out.data(), /*workspace=*/nullptr);
    pool.backward(all, in.data(), dOut.data(), dIn.data(),
                  /*workspace=*/nullptr);
    for (const hd::ParallelConfig &config :
         hd::enumerateConfigs(outShape, 4)) {
      std::vector<float> tiledOut(out.size(), 0), tiledDIn(in.size(), 0);
      for (int64_t t = 0; t < config.tasks(); ++t) {
        Box outBox = boxOf(hd::tileOfTask(outShape, config.degrees, t));
        // A pooling tile reads its own channels.
        WindowTile tile = windowTile(w, outBox, outBox.lo[1], outBox.hi[1]);
        Pool2dShape shape = all;
        shape.window = tile.window;
        std::vector<float> tin(tile.in.volume()), tout(outBox.volume()),
            tdOut(outBox.volume()), tdIn(tile.in.volume());
        copyRegion(in.data(), whole(inShape), tin.data(), tile.in, tile.in);
        copyRegion(dOut.data(), whole(outShape), tdOut.data(), outBox,
                   outBox);
        pool.forward(shape, tin.data(), tout.data(), /*workspace=*/nullptr);
        pool.backward(shape, tin.data(), tdOut.data(), tdIn.data(),
                      /*workspace=*/nullptr);
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
