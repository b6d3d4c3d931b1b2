//===- CostModelTest.cpp - layer, sync and strategy costs -----------------===//

#include "hd/CostModel/CostModel.h"
#include "hd/CostModel/ProfileDB.h"
#include "hdrt/mpi/GradientSync.h"

#include "../Common/LayerFixtures.h"

#include <gtest/gtest.h>

using namespace hd;

namespace {

using test::fcLayer;
Machine machine() { return test::p100Cluster(); }

} // namespace

TEST(CostModel, RingAllReduceFormula) {
  CostModel model(machine());
  double bytes = 4e8;
  // Two GPUs of one node: 2(r-1)/r * bytes over the pair link, plus
  // 2(r-1) latencies.
  EXPECT_NEAR(model.allReduceMs(bytes, {0, 1}, 1),
              1.0 * bytes / (20 * 1e6) + 2 * 10e-3, 1e-9);
  // Across nodes the NIC (12.5 GB/s) is the slowest link; two rings sharing
  // it get half each.
  double r = 8;
  EXPECT_NEAR(model.allReduceMs(bytes, {0, 1, 2, 3, 4, 5, 6, 7}, 2),
              2 * (r - 1) / r * bytes / (12.5 / 2 * 1e6) +
                  2 * (r - 1) * 10e-3,
              1e-9);
  EXPECT_EQ(model.allReduceMs(bytes, {3}, 1), 0);
}

TEST(CostModel, MeasuredAllReduceCurve) {
  Machine m = machine();
  m.latencyUs = 2;
  m.allReduceCurve = {{1 << 20, 1.0}, {4 << 20, 2.0}, {64 << 20, 4.0}};
  CostModel model(m);
  // At a measured size, its rate; between two, interpolated in log(bytes)
  // (16 MiB is halfway from 4 to 64 MiB); outside, the nearest.
  EXPECT_DOUBLE_EQ(model.curveGbps(4 << 20), 2.0);
  EXPECT_DOUBLE_EQ(model.curveGbps(16 << 20), 3.0);
  EXPECT_DOUBLE_EQ(model.curveGbps(1 << 10), 1.0);
  EXPECT_DOUBLE_EQ(model.curveGbps(1e12), 4.0);
  // Two ranks: half the ring's steps, one latency each way.
  double big = 16 << 20;
  EXPECT_NEAR(model.allReduceMs(big, {0, 1}, 1),
              1.0 * big / (3.0 * 1e6) + 2 * 2e-3, 1e-12);
  // Under the bucket size, the bucket's rate and a share of its latency:
  // a gradient a quarter of a bucket costs a quarter of one.
  double bucket = CostModel::kGradientBucketBytes;
  EXPECT_NEAR(model.allReduceMs(bucket / 4, {0, 1}, 1),
              model.allReduceMs(bucket, {0, 1}, 1) / 4, 1e-12);
  // Across nodes the curve (one node's measurement) does not apply.
  EXPECT_NEAR(model.allReduceMs(big, {0, 4}, 1),
              1.0 * big / (12.5 * 1e6) + 2 * 2e-3, 1e-9);
}

TEST(CostModel, BucketMatchesTheRuntime) {
  EXPECT_EQ(CostModel::kGradientBucketBytes,
            double(hdrt::mpi::GradientSync::kBucketBytes));
}

TEST(CostModel, DataParallelSyncsModelParallelDoesNot) {
  CostModel model(machine());
  Layer fc = fcLayer();
  LayerCost data = model.layerCost(fc, {{4, 1}});
  LayerCost split = model.layerCost(fc, {{1, 4}});
  EXPECT_GT(data.syncMs, 0);
  EXPECT_EQ(split.syncMs, 0);
  // Each replica group of 4 moves 2 * 3 * the whole gradient in a ring.
  EXPECT_DOUBLE_EQ(data.syncBytes, 2.0 * 3 * 4 * fc.params);
  // Splitting the work four ways makes the largest tile's compute cheaper.
  EXPECT_LT(split.computeMs, model.layerCost(fc, {{1, 1}}).computeMs);
  EXPECT_FALSE(data.measured);
}

TEST(CostModel, ProfileDatabaseOverridesTheEstimate) {
  llvm::Expected<ProfileDB> db = ProfileDB::parse(
      R"({"format": "hd-profile-1", "entries": [
           {"signature": "linear-test", "tile": [16, 1000], "backend": "cpu",
            "device": "test", "fwd_ms": 1.5, "bwd_ms": 2.25}]})",
      "db.json");
  ASSERT_TRUE(static_cast<bool>(db)) << llvm::toString(db.takeError());
  CostModel model(machine(), std::move(*db));
  LayerCost measured = model.layerCost(fcLayer(), {{4, 1}});
  EXPECT_TRUE(measured.measured);
  EXPECT_DOUBLE_EQ(measured.computeMs, 3.75);
  // No entry for this tile: the analytic estimate.
  EXPECT_FALSE(model.layerCost(fcLayer(), {{2, 1}}).measured);
}

// Four processes on two cores: layer times are measured with all four
// busy. A layer with two tasks has a core per task, twice the speed; one
// with four tasks runs as measured.
TEST(CostModel, FewerTasksThanSharedCoresRunFaster) {
  Machine shared = machine();
  shared.nodes = 1;
  shared.devicesPerNode = 4;
  Machine own = shared;
  shared.coresPerNode = 2;
  CostModel sharedModel(shared), ownModel(own);
  Layer fc = fcLayer();
  for (auto [degrees, ratio] :
       std::vector<std::pair<std::vector<int64_t>, double>>{
           {{1, 1}, 0.5}, {{2, 1}, 0.5}, {{1, 2}, 0.5}, {{4, 1}, 1.0},
           {{2, 2}, 1.0}}) {
    ParallelConfig config{degrees};
    EXPECT_DOUBLE_EQ(sharedModel.layerCost(fc, config).computeMs,
                     ratio * ownModel.layerCost(fc, config).computeMs)
        << degrees[0] << "x" << degrees[1];
  }
  // Cores enough for every process: nothing changes.
  shared.coresPerNode = 4;
  EXPECT_DOUBLE_EQ(CostModel(shared).layerCost(fc, {{1, 1}}).computeMs,
                   ownModel.layerCost(fc, {{1, 1}}).computeMs);
}

// A producer read by three layers: the runtime adds two of the readers'
// input gradients into its gradient (read both, write one), and each
// reader is charged its share of that, at the runtime's copy rate where
// the machine has one, else at memory speed.
TEST(CostModel, SharedGradientsAreAddedByAllButOneReader) {
  Machine calibrated = machine();
  calibrated.copyGbps = 3 * calibrated.memGbps;
  for (const Machine &m : {machine(), calibrated}) {
    CostModel model(m);
    double gbps = m.copyGbps > 0 ? m.copyGbps : m.memGbps;
    Layer alone = fcLayer(), shared = fcLayer();
    shared.inputs[0].producerReaders = 3;
    for (auto [degrees, rows] :
         std::vector<std::pair<std::vector<int64_t>, int64_t>>{
             {{1, 1}, 64}, {{4, 1}, 16}, {{1, 4}, 64}}) {
      ParallelConfig config{degrees};
      double box = 4.0 * rows * 512; // bytes of the largest task's input box
      double want = 2.0 / 3 * 3 * box / (gbps * 1e6);
      EXPECT_NEAR(model.layerCost(shared, config).computeMs -
                      model.layerCost(alone, config).computeMs,
                  want, 1e-12)
          << degrees[0] << "x" << degrees[1] << " at " << gbps << " GB/s";
    }
  }
}

// The slowest of a layer's tasks sets when they meet; one task meets none.
TEST(CostModel, StragglersSlowLayersOnSeveralDevices) {
  Machine jittery = machine();
  jittery.stragglerFraction = 0.05;
  CostModel steady(machine()), shaky(jittery);
  Layer fc = fcLayer();
  EXPECT_DOUBLE_EQ(shaky.layerCost(fc, {{1, 1}}).computeMs,
                   steady.layerCost(fc, {{1, 1}}).computeMs);
  for (ParallelConfig config : {ParallelConfig{{4, 1}}, ParallelConfig{{1, 2}}})
    EXPECT_DOUBLE_EQ(shaky.layerCost(fc, config).computeMs,
                     1.05 * steady.layerCost(fc, config).computeMs);
}

// The copies around a transfer: 5 bytes of box and 4 of sends per byte, at
// the measured copy rate where the machine has one, else at memory speed.
TEST(CostModel, TransferCopiesAtTheMeasuredRate) {
  Machine m = machine();
  double bytes = 5 * 4.0 * 1000 + 4 * 800.0;
  EXPECT_DOUBLE_EQ(CostModel::transferCopyBytes(1000, 800), bytes);
  EXPECT_DOUBLE_EQ(CostModel(m).transferCopyMs(1000, 800),
                   bytes / (m.memGbps * 1e6));
  m.copyGbps = 2 * m.memGbps;
  EXPECT_DOUBLE_EQ(CostModel(m).transferCopyMs(1000, 800),
                   bytes / (m.copyGbps * 1e6));
}

TEST(CostModel, CorruptProfileDatabaseIsRejected) {
  for (const char *bad :
       {"{", R"({"format": "other", "entries": []})",
        R"({"format": "hd-profile-1", "entries": [{"signature": "x"}]})",
        R"({"format": "hd-profile-1", "entries": [{"signature": "x",
            "tile": [1], "fwd_ms": -1, "bwd_ms": 0}]})"}) {
    llvm::Expected<ProfileDB> db = ProfileDB::parse(bad, "db.json");
    ASSERT_FALSE(static_cast<bool>(db)) << bad;
    std::string msg = llvm::toString(db.takeError());
    EXPECT_NE(msg.find("db.json"), std::string::npos) << msg;
  }
}

TEST(CostModel, StrategyTotalsAddUp) {
  CostModel model(machine());
  LayerGraph g;
  Layer first = fcLayer();
  first.inputs = {{-1, {64, 512}}};
  Layer second = fcLayer();
  second.shape = {64, 512};
  second.inputs = {{0, {64, 1000}}};
  second.inputBox = [](unsigned, const TileBox &t) {
    return TileBox({t[0], {0, 1000}});
  };
  g.layers = {first, second};
  StrategyCost s = evaluateStrategy(model, g, {{{1, 4}}, {{4, 1}}});
  ASSERT_EQ(s.layers.size(), 2u);
  EXPECT_NEAR(s.totalMs(),
              s.layers[0].cost.computeMs + s.layers[0].cost.syncMs +
                  s.layers[1].cost.computeMs + s.layers[1].cost.syncMs +
                  s.layers[1].inTransferMs,
              1e-12);
  EXPECT_GT(s.layers[1].inTransferMs, 0); // c-split feeds an n-split
  EXPECT_GT(s.peakMemBytes, 0);
  // One device: nothing moves.
  StrategyCost one = evaluateStrategy(model, g, {{{1, 1}}, {{1, 1}}});
  EXPECT_EQ(one.transferMs + one.syncMs, 0);
  EXPECT_EQ(one.commBytes, 0);
}
