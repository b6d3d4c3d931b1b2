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
  EXPECT_DOUBLE_EQ(CostModel::transferCopyBytes(1000, 800, 4), bytes);
  EXPECT_DOUBLE_EQ(CostModel(m).transferCopyMs(1000, 800, 4),
                   bytes / (m.memGbps * 1e6));
  m.copyGbps = 2 * m.memGbps;
  EXPECT_DOUBLE_EQ(CostModel(m).transferCopyMs(1000, 800, 4),
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

/// Two fully-connected layers, the second reading the first.
static LayerGraph twoFcLayers() {
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
  return g;
}

TEST(CostModel, StrategyTotalsAddUp) {
  CostModel model(machine());
  LayerGraph g = twoFcLayers();
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

namespace {

/// The exposed sync of a schedule without updates, in closed form: sums
/// issued at times r_1 <= ... <= r_k one after another on one channel end
/// at max over i of (r_i + s_i + ... + s_k), and the step waits for what
/// lies beyond the backward pass's end.
double closedFormExposed(const std::vector<LayerCost> &layers,
                         const std::vector<double> &transfers) {
  double forward = 0, backward = 0;
  for (size_t l = 0; l < layers.size(); ++l) {
    forward += layers[l].computeMs - layers[l].backwardMs + transfers[l] / 2;
    backward += layers[l].backwardMs + transfers[l] / 2;
  }
  std::vector<std::pair<double, double>> issued; // (ready, sum), in order
  double t = forward;
  for (size_t l = layers.size(); l-- > 0;) {
    t += layers[l].backwardMs + transfers[l] / 2;
    if (layers[l].syncMs > 0)
      issued.push_back({t, layers[l].syncMs});
  }
  double end = 0;
  for (size_t i = 0; i < issued.size(); ++i) {
    double rest = 0;
    for (size_t j = i; j < issued.size(); ++j)
      rest += issued[j].second;
    end = std::max(end, issued[i].first + rest);
  }
  return std::max(0.0, end - (forward + backward));
}

} // namespace

TEST(CostModel, ExposedSyncMatchesTheClosedForm) {
  // Random chains, some layers without parameters: the schedule's sum of
  // what the step waits for against the closed form.
  uint64_t state = 12345;
  auto uniform = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return double(state >> 11) / double(1ull << 53);
  };
  for (int trial = 0; trial < 500; ++trial) {
    size_t n = 1 + size_t(uniform() * 12);
    std::vector<LayerCost> layers(n);
    std::vector<double> transfers(n);
    for (size_t l = 0; l < n; ++l) {
      layers[l].backwardMs = 5 * uniform();
      layers[l].computeMs = layers[l].backwardMs + 3 * uniform();
      layers[l].syncMs = uniform() < 0.3 ? 0 : 8 * uniform();
      transfers[l] = uniform() < 0.5 ? 0 : 2 * uniform();
    }
    EXPECT_NEAR(exposedSyncMs(layers, transfers),
                closedFormExposed(layers, transfers), 1e-9)
        << "trial " << trial;
  }
}

TEST(CostModel, ExposedSyncHand) {
  // Program order a, b. Forward takes 1 + 2 ms; backward runs b (4 ms,
  // ends at 7) then a (2 ms, ends at 9). b's sum of 5 ms runs from 7 to 12,
  // a's sum of 1 ms from 12 to 13. Updates in the same order: b's 0.5 ms
  // after its sum, 12 to 12.5; a's 1 ms after its own, 13 to 14. With
  // instant sums the step would end at 9 + 1.5: 3.5 ms exposed.
  std::vector<LayerCost> layers(2);
  layers[0] = {/*computeMs=*/1 + 2 + 1, /*backwardMs=*/2, /*updateMs=*/1};
  layers[0].syncMs = 1;
  layers[1] = {/*computeMs=*/2 + 4 + 0.5, /*backwardMs=*/4, /*updateMs=*/0.5};
  layers[1].syncMs = 5;
  EXPECT_NEAR(exposedSyncMs(layers, {0, 0}), 3.5, 1e-12);
  // No sums: nothing exposed. b's sum of 1.5 ms (7 to 8.5) hides behind
  // a's backward: nothing exposed.
  layers[0].syncMs = layers[1].syncMs = 0;
  EXPECT_EQ(exposedSyncMs(layers, {0, 0}), 0);
  layers[1].syncMs = 1.5;
  EXPECT_NEAR(exposedSyncMs(layers, {0, 0}), 0, 1e-12);
}

TEST(CostModel, OverlappingMachinesPredictOnlyTheExposedSync) {
  Machine serial = machine(), overlapped = machine();
  overlapped.syncOverlap = true;
  LayerGraph g = twoFcLayers();
  std::vector<ParallelConfig> data = {{{4, 1}}, {{4, 1}}};
  StrategyCost a = evaluateStrategy(CostModel(serial), g, data);
  StrategyCost b = evaluateStrategy(CostModel(overlapped), g, data);
  EXPECT_EQ(a.exposedSyncMs, a.syncMs);
  EXPECT_EQ(a.totalMs(), a.serializedMs());
  ASSERT_GT(b.syncMs, 0);
  EXPECT_EQ(b.syncMs, a.syncMs);
  EXPECT_LT(b.exposedSyncMs, b.syncMs); // the second layer's sum hides
  EXPECT_GE(b.exposedSyncMs, 0);
  EXPECT_NEAR(b.totalMs(), b.computeMs + b.transferMs + b.exposedSyncMs,
              1e-12);
  for (const LayerReport &l : b.layers) {
    EXPECT_GT(l.cost.backwardMs, 0);
    EXPECT_GT(l.cost.updateMs, 0);
    EXPECT_LT(l.cost.backwardMs + l.cost.updateMs, l.cost.computeMs);
  }
}
