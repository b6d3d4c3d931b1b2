//===- PrecisionTest.cpp - autocast's rules and their prices --------------===//
//
// The rules each layer's types follow, and what the cost model charges for
// them, against closed forms: a compute-bound layer at the type's rate, a
// task's bytes by the runtime's allocation in each type, gradient sums in
// their type.
//
//===----------------------------------------------------------------------===//

#include "hd/CostModel/Precision.h"
#include "hd/CostModel/CostModel.h"

#include "../Common/LayerFixtures.h"

#include <gtest/gtest.h>

using namespace hd;

namespace {

constexpr Precision F32 = Precision::F32, BF16 = Precision::BF16,
                    F16 = Precision::F16;

/// A machine whose memory is so fast that every kernel is compute-bound,
/// with bf16 four times fp32's rate and no launch cost.
Machine computeBound() {
  Machine m = test::p100Cluster();
  m.peakGflops = 1000;
  m.peakGflopsBf16 = 4000;
  m.efficiency = 0.5;
  m.memGbps = 1e12;
  m.copyGbps = 1e12;
  m.launchUs = 0;
  return m;
}

} // namespace

TEST(Precision, NamesRoundTrip) {
  for (Precision p : {F32, BF16, F16}) {
    EXPECT_EQ(parsePrecision(precisionName(p)), p);
    EXPECT_EQ(parsePrecision(precisionTypeName(p)), p);
  }
  EXPECT_FALSE(parsePrecision("fp8"));
  EXPECT_EQ(bytesOf(F32), 4);
  EXPECT_EQ(bytesOf(BF16), 2);
  EXPECT_EQ(bytesOf(F16), 2);
}

TEST(Precision, AutocastRules) {
  auto rule = [](CostKind kind, std::vector<Precision> in) {
    return layerNumerics(kind, in, BF16);
  };
  // Dense layers compute in the low precision whatever they read.
  EXPECT_EQ(rule(CostKind::Conv, {F32}), (LayerNumerics{BF16, BF16}));
  EXPECT_EQ(rule(CostKind::Linear, {BF16}), (LayerNumerics{BF16, BF16}));
  // Statistics in fp32, written in the input's type.
  EXPECT_EQ(rule(CostKind::Normalization, {BF16}), (LayerNumerics{F32, BF16}));
  EXPECT_EQ(rule(CostKind::Normalization, {F32}), (LayerNumerics{F32, F32}));
  EXPECT_EQ(rule(CostKind::Loss, {BF16}), (LayerNumerics{F32, F32}));
  // The rest follow their inputs, the widest where they differ.
  for (CostKind kind : {CostKind::Pool, CostKind::Elementwise, CostKind::Copy,
                        CostKind::View}) {
    EXPECT_EQ(rule(kind, {BF16}), (LayerNumerics{BF16, BF16}));
    EXPECT_EQ(rule(kind, {F32}), (LayerNumerics{F32, F32}));
    EXPECT_EQ(rule(kind, {BF16, F32}), (LayerNumerics{F32, F32}));
    EXPECT_EQ(rule(kind, {BF16, F16}), (LayerNumerics{F32, F32}));
  }
  // Legal choices: a dense layer in f32 or the program's type; no other
  // kind off its rule.
  EXPECT_FALSE(checkComputeType(CostKind::Conv, {BF16}, BF16, F32));
  EXPECT_FALSE(checkComputeType(CostKind::Conv, {BF16}, BF16, BF16));
  EXPECT_TRUE(checkComputeType(CostKind::Conv, {BF16}, BF16, F16));
  EXPECT_TRUE(checkComputeType(CostKind::Normalization, {BF16}, BF16, BF16));
  EXPECT_TRUE(checkComputeType(CostKind::Elementwise, {BF16}, BF16, F32));
  EXPECT_FALSE(checkComputeType(CostKind::Elementwise, {F32}, BF16, F32));
}

TEST(Precision, MachinesStateTheirRates) {
  llvm::Expected<Machine> h200 = loadMachine("h200-node");
  ASSERT_TRUE(static_cast<bool>(h200));
  EXPECT_GT(h200->peakGflopsIn(BF16), 10 * h200->peakGflopsIn(F32));
  EXPECT_GT(h200->peakGflopsIn(F16), 10 * h200->peakGflopsIn(F32));
  Machine p100 = test::p100Cluster();
  EXPECT_EQ(p100.peakGflopsIn(BF16), 0); // no bf16 on a P100
  EXPECT_GT(p100.peakGflopsIn(F16), p100.peakGflopsIn(F32));
  // The rates survive the JSON round trip.
  llvm::Expected<Machine> again = parseMachine(machineToJSON(*h200), "again");
  ASSERT_TRUE(static_cast<bool>(again));
  EXPECT_EQ(again->peakGflopsBf16, h200->peakGflopsBf16);
  EXPECT_EQ(again->peakGflopsFp16, h200->peakGflopsFp16);
}

// A compute-bound fully-connected layer: its three passes at the dense
// rate of its compute type, its update (3 FLOPs a parameter) at fp32's
// rate, as the runtime's fp32 master weights take it.
TEST(Precision, DenseLayersComputeAtTheirTypesRate) {
  CostModel model(computeBound());
  Layer fc = test::fcLayer();
  double flops = double(fc.forwardFlops);
  double update = 3.0 * double(fc.params) / (1000 * 1e6);
  double fp32 = model.layerCost(fc, {{1, 1}}).computeMs;
  EXPECT_NEAR(fp32, 3 * flops / (1000 * 0.5 * 1e6) + update, 1e-6 * fp32);
  fc.numerics = {BF16, BF16};
  fc.inputs[0].type = BF16;
  double bf16 = model.layerCost(fc, {{1, 1}}).computeMs;
  EXPECT_NEAR(bf16, 3 * flops / (4000 * 0.5 * 1e6) + update, 1e-6 * bf16);
  // An elementwise layer gains nothing from tensor cores.
  Layer relu = fc;
  relu.kind = CostKind::Elementwise;
  relu.params = 0;
  relu.forwardFlops = 64 * 1000;
  double relu32 = CostModel(computeBound()).layerCost(relu, {{1, 1}}).computeMs;
  relu.numerics = {F32, F32};
  EXPECT_NEAR(model.layerCost(relu, {{1, 1}}).computeMs, relu32, 1e-9 * relu32);
}

// A task's bytes, as the runtime allocates them: fp32 parameters and
// momentum, gradients in their sync type, the compute type's copy of the
// parameters, and the output and its gradient in the output type.
TEST(Precision, TaskMemoryByType) {
  CostModel model(test::p100Cluster());
  Layer fc = test::fcLayer();
  int64_t params = fc.params, outputs = 64 * 1000;
  EXPECT_EQ(model.taskMemoryBytes(fc, {{1, 1}}, 0, 0),
            12 * params + 8 * outputs);
  fc.numerics = {BF16, BF16};
  EXPECT_EQ(model.taskMemoryBytes(fc, {{1, 1}}, 0, 0),
            (4 + 4 + 4 + 2) * params + 4 * outputs);
  fc.gradientType = BF16;
  EXPECT_EQ(model.taskMemoryBytes(fc, {{1, 1}}, 0, 0),
            (4 + 4 + 2 + 2) * params + 4 * outputs);
  // Batch norm keeps fp32 statistics and parameters, and writes bf16.
  Layer bn = fc;
  bn.kind = CostKind::Normalization;
  bn.params = 2 * 1000;
  bn.numerics = {F32, BF16};
  bn.gradientType = F32;
  EXPECT_EQ(model.taskMemoryBytes(bn, {{1, 1}}, 0, 0),
            12 * bn.params + 4 * outputs);
}

// Data parallelism's ring moves 2(r-1) shards of the gradient, at the
// gradient type's size.
TEST(Precision, GradientSumsInTheirType) {
  CostModel model(test::p100Cluster());
  Layer fc = test::fcLayer();
  fc.numerics = {BF16, BF16};
  LayerCost fp32 = model.layerCost(fc, {{4, 1}});
  EXPECT_DOUBLE_EQ(fp32.syncBytes, 2.0 * 3 * 4 * fc.params);
  fc.gradientType = BF16;
  LayerCost bf16 = model.layerCost(fc, {{4, 1}});
  EXPECT_DOUBLE_EQ(bf16.syncBytes, 2.0 * 3 * 2 * fc.params);
  EXPECT_LT(bf16.syncMs, fp32.syncMs);
}
