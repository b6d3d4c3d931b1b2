//===- TransferTest.cpp - transfer loads and bounds vs enumeration --------===//
//
// Pair-by-pair enumeration is the oracle for the separable per-resource
// loads, and the exact cost for the bounds. The overlaps themselves are
// checked against element ownership in Tiling/TransferPlanTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "hd/CostModel/Transfer.h"
#include "hd/CostModel/CostModel.h"
#include "hd/Tiling/Window.h"

#include "../Common/ConsumerLayers.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

using namespace hd;
using namespace hd::test;

namespace {

Machine testMachine(int64_t nodes, int64_t perNode) {
  Machine m;
  m.name = "test";
  m.nodes = nodes;
  m.devicesPerNode = perNode;
  m.peakGflops = 1000;
  m.memGbps = 100;
  m.memGib = 16;
  m.launchUs = 1;
  m.intraNodeGbps = 10;
  m.deviceGbps = 30;
  m.interNodeGbps = 5;
  m.latencyUs = 2;
  return m;
}

/// The peaks that never depend on how they were computed.
void expectSamePeaks(const TransferPeaks &got, const TransferPeaks &want,
                     const std::string &what) {
  EXPECT_EQ(got.elements, want.elements) << what;
  EXPECT_EQ(got.maxPortBytes, want.maxPortBytes) << what;
  EXPECT_EQ(got.maxNicBytes, want.maxNicBytes) << what;
  EXPECT_EQ(got.maxMessages, want.maxMessages) << what;
}

} // namespace

// The separable loads equal enumeration for every hd box function, config
// pair and machine shape (one node, several nodes, one device per node).
TEST(Transfer, SeparableLoadsMatchEnumeration) {
  std::mt19937 rng(7);
  int separable = 0, mergedBoxes = 0;
  for (auto [nodes, perNode] : std::vector<std::pair<int, int>>{
           {1, 8}, {2, 4}, {4, 2}, {8, 1}, {3, 4}}) {
    Machine m = testMachine(nodes, perNode);
    for (int trial = 0; trial < 4; ++trial) {
      std::vector<int64_t> shape;
      for (const Layer &consumer : consumers(shape, rng)) {
        auto pcs = enumerateConfigs(shape, 8);
        auto ccs = enumerateConfigs(consumer.shape, 8);
        for (int k = 0; k < 15; ++k) {
          const ParallelConfig &pc = pcs[rng() % pcs.size()];
          const ParallelConfig &cc = ccs[rng() % ccs.size()];
          ConsumerTiles tiles = consumerTiles(consumer, 0, cc);
          if (tiles.boxes.size() > size_t(m.numDevices()) ||
              pc.tasks() > m.numDevices())
            continue;
          separable += tiles.separable;
          TransferLoads fast, slow;
          // Every other producer writes bf16 (2 bytes an element).
          double elementBytes = k % 2 ? 2 : 4;
          ProducerGrid grid = producerGrid(shape, pc);
          grid.elementBytes = elementBytes;
          transferLoads(m, grid, tiles, true, fast);
          transferLoads(m, grid, tiles, false, slow);
          std::string what = pc.str() + " -> " + cc.str();
          EXPECT_EQ(fast.elements, slow.elements) << what;
          EXPECT_EQ(fast.maxPairBytes, slow.maxPairBytes) << what;
          EXPECT_EQ(fast.devOut, slow.devOut) << what;
          EXPECT_EQ(fast.devIn, slow.devIn) << what;
          EXPECT_EQ(fast.nicOut, slow.nicOut) << what;
          EXPECT_EQ(fast.nicIn, slow.nicIn) << what;
          EXPECT_EQ(fast.msgsOut, slow.msgsOut) << what;
          EXPECT_EQ(fast.msgsIn, slow.msgsIn) << what;
          // Every remote element arrives once, at its producer's size.
          double in = 0;
          for (const std::vector<double> *v : {&slow.devIn, &slow.nicIn})
            for (double bytes : *v)
              in += bytes;
          EXPECT_EQ(in, elementBytes * double(slow.elements)) << what;
          // The peaks alone, which skip the producer side where it cannot
          // set the busiest port, with node boxes computed per transfer or
          // with the grid; where pair links are as fast as ports, the
          // busiest pair is not computed.
          // With the consumer's merged node boxes too.
          TransferPeaks want = peaksOf(slow);
          Machine fastPairs = m;
          fastPairs.intraNodeGbps = m.deviceGbps;
          ConsumerTiles merged = consumerTiles(consumer, 0, cc, perNode);
          mergedBoxes += merged.nodeBoxes.nodeSize > 0;
          for (const Machine *machine : {&m, &fastPairs})
            for (ProducerGrid g : {grid, producerGrid(shape, pc, perNode)})
              for (const ConsumerTiles *t : {&tiles, &merged}) {
                g.elementBytes = elementBytes;
                TransferPeaks got = transferPeaks(*machine, g, *t);
                expectSamePeaks(got, want, what);
                EXPECT_EQ(got.maxPairBytes, machine == &m || !tiles.separable
                                                ? want.maxPairBytes
                                                : 0)
                    << what;
              }
        }
      }
    }
  }
  // Every hd box function is separable; the halo-free ones get merged
  // node boxes.
  EXPECT_GE(separable, 800);
  EXPECT_GE(mergedBoxes, 300);
}

// Where both layers split the batch (or, splitting no batch, the channels
// of a layer that reads its own), the devices fall into slabs that move
// data only among themselves, and the peaks come from the first slab alone.
// They must equal enumeration's, with nodes that hold several slabs and
// slabs that span several nodes.
TEST(Transfer, PeaksFromTheFirstSlabMatchEnumeration) {
  std::mt19937 rng(11);
  std::vector<int64_t> shape = {16, 8, 9, 6};
  std::map<int64_t, int> bySlabs;
  int channelSlabs = 0;
  for (auto [nodes, perNode] : std::vector<std::pair<int, int>>{
           {1, 16}, {2, 8}, {4, 4}, {8, 2}, {16, 1}, {6, 3}}) {
    Machine m = testMachine(nodes, perNode);
    for (const Layer &consumer :
         {convLike(shape, 6, Window{3, 1, 1, 1, 1, false}, 1),
          convLike(shape, 8, Window{3, 2, 1, 0, 1, false}, 2),
          elementwise(shape), flatten(shape)}) {
      std::vector<ParallelConfig> pcs, ccs;
      for (const ParallelConfig &c : enumerateConfigs(shape, 16))
        if (c.tasks() == 16)
          pcs.push_back(c);
      for (const ParallelConfig &c : enumerateConfigs(consumer.shape, 16))
        if (c.tasks() == 16)
          ccs.push_back(c);
      for (int k = 0; k < 60; ++k) {
        const ParallelConfig &pc = pcs[rng() % pcs.size()];
        const ParallelConfig &cc = ccs[rng() % ccs.size()];
        ConsumerTiles tiles = consumerTiles(consumer, 0, cc, perNode);
        ProducerGrid grid = producerGrid(shape, pc, perNode);
        int64_t slabs = identicalSlabs(grid, tiles, perNode);
        ++bySlabs[slabs];
        channelSlabs += slabs > 1 && pc.degrees[0] == 1;
        TransferLoads slow;
        transferLoads(m, grid, tiles, false, slow);
        TransferPeaks want = peaksOf(slow), got = transferPeaks(m, grid, tiles);
        std::string what = pc.str() + " -> " + cc.str();
        expectSamePeaks(got, want, what);
        EXPECT_EQ(got.maxPairBytes, want.maxPairBytes) << what;
      }
    }
  }
  // Slabs of one device, of a node and of several nodes all occur; a
  // flattening consumer reads across them, and slabs that would straddle
  // nodes of 3 devices are merged.
  EXPECT_GE(bySlabs[1], 100);
  EXPECT_GE(bySlabs[2] + bySlabs[4], 100);
  EXPECT_GE(bySlabs[8] + bySlabs[16], 20);
  EXPECT_GE(channelSlabs, 20);
}

TEST(Transfer, LinearAfterFlattenReplicatesFeatures) {
  // A c-split linear layer needs every feature: each task receives the
  // features the other tasks computed.
  std::vector<int64_t> in = {4, 12};
  Layer fc = linear(in, 6);
  CostModel model(testMachine(1, 4));
  Layer producer = elementwise(in);
  TransferCost t = model.transferCost(producer, {{1, 4}}, fc, 0, {{1, 4}});
  // Each of 4 tasks gets 3 of 4 quarters of a 4x12 input, both directions.
  EXPECT_DOUBLE_EQ(t.bytes, 2 * 4.0 * 4 * (4 * 12 * 3 / 4));
  TransferCost same = model.transferCost(producer, {{4, 1}}, fc, 0, {{4, 1}});
  EXPECT_EQ(same.bytes, 0);
}

// The position-free bound is never above the exact cost, for every hd box
// function, config pair (different task counts included) and machine shape.
TEST(Transfer, MisalignmentBoundNeverExceedsTheCost) {
  std::mt19937 rng(11);
  int checked = 0, tight = 0;
  for (auto [nodes, perNode] : std::vector<std::pair<int, int>>{
           {1, 8}, {2, 4}, {4, 2}, {8, 1}, {3, 4}}) {
    Machine m = testMachine(nodes, perNode);
    CostModel model(m);
    for (int trial = 0; trial < 4; ++trial) {
      std::vector<int64_t> shape;
      for (const Layer &consumer : consumers(shape, rng)) {
        auto pcs = enumerateConfigs(shape, m.numDevices());
        auto ccs = enumerateConfigs(consumer.shape, m.numDevices());
        for (int k = 0; k < 20; ++k) {
          const ParallelConfig &pc = pcs[rng() % pcs.size()];
          const ParallelConfig &cc = ccs[rng() % ccs.size()];
          ProducerGrid grid = producerGrid(shape, pc);
          grid.elementBytes = k % 2 ? 2 : 4;
          ConsumerTiles tiles = consumerTiles(consumer, 0, cc);
          double exact = model.transferCost(grid, tiles).ms;
          double bound = model.misalignmentBoundMs(
              producerExtents(grid, perNode), consumerExtents(tiles.boxes));
          EXPECT_LE(bound, exact * (1 + 1e-12))
              << pc.str() << " -> " << cc.str();
          ++checked;
          tight += exact > 0 && bound >= 0.5 * exact;
        }
      }
    }
  }
  EXPECT_GE(checked, 2000);
  // Not vacuous: it often gets within half of the cost.
  EXPECT_GE(tight, checked / 10);
}

// The runtime assembles a consumer box wherever it is not its device's own
// tile, and the cost charges its copies exactly there (the O(1) test in
// transferCost against readsOwnDeviceTile, which compares every tile), on
// top of the links' cost.
TEST(Transfer, CopiesChargedWhereABoxIsNotItsDevicesTile) {
  std::mt19937 rng(5);
  int copied = 0, inPlace = 0;
  for (auto [nodes, perNode] :
       std::vector<std::pair<int, int>>{{1, 4}, {2, 4}, {1, 6}}) {
    Machine m = testMachine(nodes, perNode);
    Machine linksOnly = m;
    linksOnly.memGbps = 0;
    CostModel model(m), links(linksOnly);
    for (int trial = 0; trial < 4; ++trial) {
      std::vector<int64_t> shape;
      for (const Layer &consumer : consumers(shape, rng)) {
        auto pcs = enumerateConfigs(shape, m.numDevices());
        auto ccs = enumerateConfigs(consumer.shape, m.numDevices());
        for (int k = 0; k < 30; ++k) {
          const ParallelConfig &pc = pcs[rng() % pcs.size()];
          // Every third pair reads with the producer's own configuration,
          // where elementwise consumers read their tiles in place.
          const ParallelConfig &cc =
              k % 3 == 0 && pc.degrees.size() == consumer.shape.size()
                  ? pc
                  : ccs[rng() % ccs.size()];
          ProducerGrid grid = producerGrid(shape, pc);
          grid.elementBytes = k % 2 ? 2 : 4;
          ConsumerTiles tiles = consumerTiles(consumer, 0, cc);
          int64_t largest = 0;
          for (const TileBox &b : tiles.boxes)
            largest = std::max(largest, b.volume());
          bool copies = !readsOwnDeviceTile(grid, tiles);
          double sent = transferPeaks(m, grid, tiles).maxPortBytes;
          double want =
              copies ? model.transferCopyMs(largest, sent, grid.elementBytes)
                     : 0;
          EXPECT_NEAR(model.transferCost(grid, tiles).ms -
                          links.transferCost(grid, tiles).ms,
                      want, 1e-9 * (1 + want))
              << pc.str() << " -> " << cc.str();
          copied += copies;
          inPlace += !copies;
        }
      }
    }
  }
  // Both cases occur.
  EXPECT_GE(copied, 100);
  EXPECT_GE(inPlace, 20);
}
