//===- PlannerTest.cpp - cost tables, candidates and the planner ----------===//
//
// The strategy library on hand-built layer graphs: the tables hold the cost
// model's numbers, the candidates obey each layer's split rule, and the
// planner's search is never worse than a baseline, equals brute force, and
// keeps pinned layers.
//
//===----------------------------------------------------------------------===//

#include "hd/Strategy/Planner.h"
#include "hd/Strategy/Candidates.h"
#include "hd/Strategy/CostTables.h"

#include "../Common/LayerFixtures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>

using namespace hd;

namespace {

using test::fcLayer;
Machine machine() { return test::p100Cluster(); }

/// A grouped 3x3 convolution (stride 1, padding 1) reading `producer`.
Layer convLayer(std::string name, int producer, int64_t groups) {
  Layer l;
  l.name = name;
  l.op = "conv2d";
  l.kind = CostKind::Conv;
  l.shape = {16, 32, 14, 14};
  l.params = 32 * (32 / groups) * 9 + 32;
  l.forwardFlops = 2LL * 16 * 32 * 14 * 14 * (32 / groups) * 9;
  l.inputs = {{producer, {16, 32, 14, 14}}};
  l.inputBox = [groups](unsigned, const TileBox &t) {
    Range channels{0, 32};
    if (groups > 1 && !t[1].empty())
      channels = {t[1].lo / (32 / groups) * (32 / groups),
                  ((t[1].hi - 1) / (32 / groups) + 1) * (32 / groups)};
    return TileBox({t[0],
                    channels,
                    {std::max<int64_t>(0, t[2].lo - 1),
                     std::min<int64_t>(14, t[2].hi + 1)},
                    {std::max<int64_t>(0, t[3].lo - 1),
                     std::min<int64_t>(14, t[3].hi + 1)}});
  };
  l.signature = name + "-conv";
  l.split.channelGroups = groups;
  return l;
}

/// conv (from the images) -> grouped conv -> flattened fc, as one graph.
LayerGraph smallGraph() {
  LayerGraph g;
  g.model = "small";
  g.modelHash = "0123456789abcdef";
  g.batch = 16;
  g.layers.push_back(convLayer("conv1", -1, 1));
  g.layers.push_back(convLayer("conv2", 0, 4));
  Layer fc = fcLayer();
  fc.shape = {16, 10};
  fc.params = 10 * 32 * 14 * 14 + 10;
  fc.forwardFlops = 2LL * 16 * 10 * 32 * 14 * 14;
  fc.inputs = {{1, {16, 32, 14, 14}}};
  fc.inputBox = [](unsigned, const TileBox &t) {
    return TileBox({t[0], {0, 32}, {0, 14}, {0, 14}});
  };
  g.layers.push_back(fc);
  return g;
}

Target target(StrategyKind kind, int64_t devices) {
  Target t;
  t.machine = machine();
  t.devices = devices;
  t.strategy = kind;
  return t;
}

double planned(const LayerGraph &g, StrategyKind kind, int64_t devices,
               std::vector<std::optional<ParallelConfig>> pinned = {}) {
  pinned.resize(g.layers.size());
  Planner planner(g, target(kind, devices));
  llvm::Error e = planner.plan(pinned, "");
  EXPECT_FALSE(static_cast<bool>(e)) << llvm::toString(std::move(e));
  return planner.report().cost.totalMs();
}

} // namespace

// Two layers with one signature share a node table only when they cost the
// same: one fed by the images skips its backward-data pass.
TEST(CostTables, TablesMatchLayerCosts) {
  CostModel model(machine());
  LayerGraph g;
  Layer first = fcLayer();
  first.inputs = {{-1, {64, 512}}};
  Layer relu;
  relu.name = "relu";
  relu.op = "relu";
  relu.shape = {64, 1000};
  relu.forwardFlops = 64 * 1000;
  relu.inputs = {{0, {64, 1000}}};
  relu.inputBox = [](unsigned, const TileBox &t) { return t; };
  relu.signature = "relu-test";
  Layer imageRelu = relu;
  imageRelu.inputs = {{-1, {64, 1000}}};
  g.layers = {first, relu, imageRelu};
  std::vector<std::vector<ParallelConfig>> candidates;
  for (const Layer &l : g.layers)
    candidates.push_back(enumerateConfigs(l.shape, 4));
  CostTables tables(model, g, candidates);
  SearchGraph sg = tables.buildSearchGraph();
  for (int l = 0; l < 3; ++l)
    for (size_t c = 0; c < candidates[l].size(); ++c) {
      LayerCost cost = model.layerCost(g.layers[l], candidates[l][c]);
      EXPECT_DOUBLE_EQ(sg.nodeCost[l][c], cost.computeMs + cost.syncMs)
          << g.layers[l].name << " " << candidates[l][c].str();
    }
}

void expectGroupBoundsBelowMembers(const LayerGraph &g);

// The grouped search's bounds never exceed what any member of the group
// costs: for every edge (own-tile, halo, grouped, strided with unread rows,
// flattening, a slice of half the channels), every group on either side and
// every configuration on the other, on a machine of several nodes and on
// one, in fp32 and in fp16.
TEST(CostTables, GroupBoundsNeverExceedTheirMembers) {
  LayerGraph g = smallGraph();
  Layer relu;
  relu.name = "relu";
  relu.op = "relu";
  relu.kind = CostKind::Elementwise;
  relu.shape = {16, 32, 14, 14};
  relu.forwardFlops = 16 * 32 * 14 * 14;
  relu.inputs = {{1, relu.shape}};
  relu.inputBox = [](unsigned, const TileBox &t) { return t; };
  relu.signature = "relu-test";
  // A 1x1 convolution of stride 2: the odd rows and columns are never read.
  Layer strided = convLayer("strided", 2, 1);
  strided.shape = {16, 32, 7, 7};
  strided.inputBox = [](unsigned, const TileBox &t) {
    auto rows = [](Range r) {
      return r.empty() ? r : Range{2 * r.lo, 2 * (r.hi - 1) + 1};
    };
    return TileBox({t[0], {0, 32}, rows(t[2]), rows(t[3])});
  };
  g.layers.insert(g.layers.begin() + 2, relu);
  g.layers.insert(g.layers.begin() + 3, strided);
  g.layers.back().inputs = {{3, {16, 32, 7, 7}}};
  g.layers.back().inputBox = [](unsigned, const TileBox &t) {
    return TileBox({t[0], {0, 32}, {0, 7}, {0, 7}});
  };
  // The first half of the channels, as a split or slice reads them.
  Layer half = relu;
  half.name = "half";
  half.shape = {16, 16, 14, 14};
  half.inputs = {{2, relu.shape}};
  half.signature = "half-test";
  g.layers.push_back(half);
  for (Precision precision : {Precision::F32, Precision::F16})
    expectGroupBoundsBelowMembers(test::inPrecision(g, precision));
}

void expectGroupBoundsBelowMembers(const LayerGraph &g) {
  for (Machine m : {machine(), test::p100Cluster()}) {
    if (m.nodes == 4) { // the second: one node of 16
      m.nodes = 1;
      m.devicesPerNode = 16;
    }
    CostModel model(m);
    std::vector<std::vector<ParallelConfig>> candidates =
        searchCandidates(g, 16);
    CostTables tables(model, g, candidates);
    int checked = 0, positive = 0;
    for (int e = 0; e < tables.numEdges(); ++e) {
      auto [from, to] = tables.edgeEnds(e);
      for (bool atFrom : {true, false}) {
        int side = atFrom ? from : to, other = atFrom ? to : from;
        const std::vector<int> &groups = tables.groups(side);
        int groupCount = *std::max_element(groups.begin(), groups.end()) + 1;
        for (int group = 0; group < groupCount; ++group)
          for (size_t c = 0; c < candidates[other].size(); ++c) {
            double least = std::numeric_limits<double>::infinity();
            for (size_t x = 0; x < groups.size(); ++x)
              if (groups[x] == group)
                least = std::min(least, atFrom ? tables.edgeCost(e, x, c)
                                               : tables.edgeCost(e, c, x));
            double bound = tables.groupBound(e, atFrom, group, int(c));
            EXPECT_LE(bound, least * (1 + 1e-12))
                << g.layers[from].name << " -> " << g.layers[to].name
                << (atFrom ? " group at producer " : " group at consumer ")
                << group << ", other " << candidates[other][c].str();
            ++checked;
            positive += bound > 0;
          }
      }
    }
    // Two groups against each other: at most their least member pair.
    for (int e = 0; e < tables.numEdges(); ++e) {
      auto [from, to] = tables.edgeEnds(e);
      const std::vector<int> &fromGroups = tables.groups(from);
      const std::vector<int> &toGroups = tables.groups(to);
      std::map<std::pair<int, int>, double> least;
      for (size_t p = 0; p < fromGroups.size(); ++p)
        for (size_t c = 0; c < toGroups.size(); ++c) {
          auto [it, added] = least.try_emplace(
              {fromGroups[p], toGroups[c]}, tables.edgeCost(e, p, c));
          it->second = std::min(it->second, tables.edgeCost(e, p, c));
        }
      for (auto [groups, cost] : least) {
        double bound = tables.standInsBound(e, groups.first, groups.second);
        EXPECT_LE(bound, cost * (1 + 1e-12))
            << g.layers[from].name << " -> " << g.layers[to].name
            << ": groups " << groups.first << " and " << groups.second;
        ++checked;
        positive += bound > 0;
      }
    }
    EXPECT_GT(checked, 2000);
    EXPECT_GT(positive, checked / 4) << "the bounds should mostly bind";
  }
}

TEST(Candidates, ObeyTheSplitRuleAndIncludeTheBaselines) {
  LayerGraph g = smallGraph();
  for (int64_t devices : {1, 2, 4, 6, 8}) {
    std::vector<std::vector<ParallelConfig>> all = searchCandidates(g, devices);
    for (size_t l = 0; l < g.layers.size(); ++l) {
      const Layer &layer = g.layers[l];
      for (const ParallelConfig &c : all[l])
        EXPECT_TRUE(layer.split.allows(c)) << layer.name << " " << c.str();
      bool afterLinear = layer.kind == CostKind::Linear;
      for (StrategyKind kind :
           {StrategyKind::Data, StrategyKind::Model, StrategyKind::OWT}) {
        ParallelConfig b = baselineConfig(kind, layer, devices, afterLinear);
        EXPECT_TRUE(layer.split.allows(b)) << layer.name << " " << b.str();
        EXPECT_NE(std::find(all[l].begin(), all[l].end(), b), all[l].end());
      }
    }
  }
}

TEST(Candidates, BaselinesOfAGroupedConvolutionKeepGroupsWhole) {
  Layer conv = convLayer("grouped", -1, 4);
  // 6 devices: 6 and 3 do not divide 4 groups, 2 does.
  ParallelConfig model = baselineConfig(StrategyKind::Model, conv, 6, false);
  EXPECT_EQ(model.degrees, (std::vector<int64_t>{1, 2, 1, 1}));
  ParallelConfig data = baselineConfig(StrategyKind::Data, conv, 6, false);
  EXPECT_EQ(data.degrees, (std::vector<int64_t>{6, 1, 1, 1}));
}

TEST(Candidates, ANonSplittableDimensionStaysWhole) {
  Layer fc = fcLayer();
  fc.split.splittableDims = 0b10; // c only
  for (const ParallelConfig &c : candidateConfigs(fc.shape, fc.split, 8))
    EXPECT_EQ(c.degrees[0], 1) << c.str();
  EXPECT_EQ(baselineConfig(StrategyKind::Data, fc, 8, false).degrees,
            (std::vector<int64_t>{1, 1}));
}

TEST(Planner, SearchBeatsEveryBaselineAndEqualsBruteForce) {
  for (auto [precision, devices] :
       std::vector<std::pair<Precision, int64_t>>{{Precision::F32, 2},
                                                  {Precision::F32, 4},
                                                  {Precision::F16, 2},
                                                  {Precision::F16, 4}}) {
    LayerGraph g = test::inPrecision(smallGraph(), precision);
    double layerwise = planned(g, StrategyKind::Layerwise, devices);
    for (StrategyKind kind :
         {StrategyKind::Data, StrategyKind::Model, StrategyKind::OWT})
      EXPECT_LE(layerwise, planned(g, kind, devices) * (1 + 1e-12))
          << strategyName(kind) << " on " << devices;
    EXPECT_NEAR(layerwise, planned(g, StrategyKind::Exhaustive, devices),
                1e-9 * layerwise);
  }
}

// A graph too wide for exact elimination (every layer reads every earlier
// one, as in a dense block) takes the search's approximation, which must
// still never lose to a baseline: their configurations are candidates.
TEST(Planner, AnApproximateSearchNeverLosesToABaseline) {
  LayerGraph g;
  g.model = "dense";
  g.modelHash = "fedcba9876543210";
  g.batch = 16;
  for (int k = 0; k < 9; ++k) {
    Layer l = convLayer("conv" + std::to_string(k), k - 1, 1);
    l.inputs.clear();
    for (int p = 0; p < k; ++p)
      l.inputs.push_back({p, {16, 32, 14, 14}});
    if (k == 0)
      l.inputs.push_back({-1, {16, 32, 14, 14}});
    g.layers.push_back(l);
  }
  int64_t devices = 16;
  Planner planner(g, target(StrategyKind::Layerwise, devices));
  ASSERT_FALSE(static_cast<bool>(planner.plan(
      std::vector<std::optional<ParallelConfig>>(g.layers.size()), "")));
  StrategyReport r = planner.report();
  ASSERT_TRUE(r.search);
  EXPECT_FALSE(r.search->exact) << "the graph must be too wide to be exact";
  for (StrategyKind kind :
       {StrategyKind::Data, StrategyKind::Model, StrategyKind::OWT})
    EXPECT_LE(r.cost.totalMs(), planned(g, kind, devices) * (1 + 1e-12))
        << strategyName(kind);
  EXPECT_LE(r.search->lowerBound, r.cost.totalMs() * (1 + 1e-12));
}

TEST(Planner, PinnedLayersKeepTheirConfiguration) {
  LayerGraph g = smallGraph();
  std::vector<std::optional<ParallelConfig>> pinned(g.layers.size());
  pinned[1] = ParallelConfig{{1, 1, 2, 2}};
  for (StrategyKind kind : {StrategyKind::Layerwise, StrategyKind::Data,
                            StrategyKind::Exhaustive}) {
    Planner planner(g, target(kind, 4));
    ASSERT_FALSE(static_cast<bool>(planner.plan(pinned, "")));
    EXPECT_EQ(planner.configs()[1], *pinned[1]) << strategyName(kind);
  }
}

TEST(Planner, ABadTargetIsRefusedByName) {
  llvm::Expected<Target> bad = resolveTarget({"p100-cluster", 17, "data", ""});
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "devices=17 exceeds the 16 devices of machine 'p100-cluster' "
            "(4 nodes x 4)");
  llvm::Expected<Target> unknown = resolveTarget({"cpu", 1, "fast", ""});
  ASSERT_FALSE(static_cast<bool>(unknown));
  EXPECT_EQ(llvm::toString(unknown.takeError()),
            "unknown strategy 'fast'; use layerwise, data, model, owt or "
            "exhaustive");
}

TEST(StrategyKind, NamesRoundTrip) {
  for (StrategyKind kind :
       {StrategyKind::Layerwise, StrategyKind::Data, StrategyKind::Model,
        StrategyKind::OWT, StrategyKind::Exhaustive})
    EXPECT_EQ(parseStrategyKind(strategyName(kind)), kind);
  // A report's label, not a choice.
  EXPECT_FALSE(parseStrategyKind(strategyName(StrategyKind::Imported)));
}
