//===- GroupedSearchTest.cpp - the grouped search vs the full search ------===//
//
// The oracle is searchOptimal on the whole graph (itself checked against
// brute force in SearchTest.cpp). Each random DAG's configurations get
// random groups, and each group's bound is its members' least edge cost
// scaled by a random factor in [0, 1]: as loose as 0 (every group may win
// and join) and as tight as the true minimum.
//
//===----------------------------------------------------------------------===//

#include "RandomGraphs.h"

#include "hd/Search/GroupedSearch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

using namespace hd;
using namespace hd::random_graphs;

namespace {

/// GroupedCosts over a graph whose tables are all known.
class KnownCosts : public GroupedCosts {
public:
  KnownCosts(const SearchGraph &graph, std::mt19937 &rng, int groupCount,
             double tightness)
      : graph(graph), tightness(tightness) {
    std::uniform_int_distribution<int> pick(0, groupCount - 1);
    for (int n = 0; n < graph.numNodes(); ++n) {
      std::vector<int> &g = nodeGroups.emplace_back();
      for (int c = 0; c < graph.numConfigs(n); ++c)
        g.push_back(c == 0 ? 0 : pick(rng)); // group 0 is never empty
    }
  }

  int numNodes() const override { return graph.numNodes(); }
  const std::vector<double> &nodeCosts(int n) override {
    return graph.nodeCost[n];
  }
  const std::vector<int> &groups(int n) override { return nodeGroups[n]; }
  /// Whether group 0 starts exact (the default), or every group starts as
  /// a stand-in (as the planner's on more than 32 devices).
  void setGroupZeroExact(bool exact) { groupZeroExact = exact; }
  bool startsExact(int, int group) override {
    return groupZeroExact && group == 0;
  }
  /// Seeds for the search's first upper bound: per node, `seed` and the
  /// configuration after it (mod the node's count).
  void setSeed(std::vector<int> seed) { seedChoice = std::move(seed); }
  std::vector<std::vector<std::vector<int>>> seeds() override {
    if (seedChoice.empty())
      return {};
    std::vector<std::vector<int>> subsets;
    for (int n = 0; n < graph.numNodes(); ++n)
      subsets.push_back(
          {seedChoice[n], (seedChoice[n] + 1) % graph.numConfigs(n)});
    return {subsets};
  }
  int numEdges() const override { return int(graph.edges.size()); }
  std::pair<int, int> edgeEnds(int e) const override {
    return {graph.edges[e].from, graph.edges[e].to};
  }
  void fill(std::vector<EdgeBlock> &blocks) override {
    for (EdgeBlock &b : blocks) {
      const SearchEdge &e = graph.edges[b.edge];
      int cols = graph.numConfigs(e.to);
      b.costs.clear();
      for (int r : b.rows)
        for (int c : b.cols)
          b.costs.push_back(e.cost[size_t(r) * cols + c]);
    }
  }
  double groupBound(int edge, bool groupAtFrom, int group,
                    int config) override {
    const SearchEdge &e = graph.edges[edge];
    int cols = graph.numConfigs(e.to);
    double least = std::numeric_limits<double>::infinity();
    int side = groupAtFrom ? e.from : e.to;
    for (int m = 0; m < graph.numConfigs(side); ++m)
      if (nodeGroups[side][m] == group)
        least =
            std::min(least, groupAtFrom ? e.cost[size_t(m) * cols + config]
                                        : e.cost[size_t(config) * cols + m]);
    return tightness * least;
  }

private:
  const SearchGraph &graph;
  double tightness;
  bool groupZeroExact = true;
  std::vector<int> seedChoice;
  std::vector<std::vector<int>> nodeGroups;
};

TEST(GroupedSearch, SameOptimumAsTheFullSearch) {
  std::mt19937 rng(20261204);
  int checked = 0, saved = 0, severalRounds = 0;
  int64_t dropped = 0, droppedSeeded = 0;
  for (Shape shape : {Shape::Chain, Shape::Diamond, Shape::BranchJoin,
                      Shape::RandomDag, Shape::Dense})
    for (int64_t devices : {4, 8, 16})
      for (int trial = 0; trial < 12; ++trial) {
        int nodes = shape == Shape::Dense ? 4 + trial % 3 : 3 + trial;
        SearchGraph g = randomGraph(rng, shape, nodes, devices);
        double tightness = std::vector<double>{0.0, 0.5, 1.0}[trial % 3];
        KnownCosts costs(g, rng, 2 + trial % 4, tightness);
        SearchResult full = searchOptimal(g);
        SearchResult grouped = searchByGroups(costs);
        std::string what = "shape " + std::to_string(int(shape)) + " devices " +
                           std::to_string(devices) + " trial " +
                           std::to_string(trial);
        ASSERT_TRUE(full.stats.exact) << what;
        // The full search's optimum, and the cost of the choice returned.
        auto expectOptimum = [&](const SearchResult &r, const char *how) {
          EXPECT_TRUE(r.stats.exact) << what << how;
          EXPECT_NEAR(r.cost, full.cost, 1e-9 * std::max(1.0, full.cost))
              << what << how;
          EXPECT_NEAR(evaluate(g, r.choice), r.cost,
                      1e-9 * std::max(1.0, r.cost))
              << what << how;
        };
        expectOptimum(grouped, "");
        EXPECT_LE(grouped.stats.exactConfigs, grouped.stats.allConfigs);
        // With every group a stand-in at first: the same optimum.
        costs.setGroupZeroExact(false);
        expectOptimum(searchByGroups(costs), " all stand-ins");
        costs.setGroupZeroExact(true);
        // Seeded with an optimal strategy, the search drops configurations
        // from the first round that picks a stand-in on: the same optimum.
        costs.setSeed(full.choice);
        SearchResult seeded = searchByGroups(costs);
        expectOptimum(seeded, " seeded");
        dropped += grouped.stats.droppedConfigs;
        droppedSeeded += seeded.stats.droppedConfigs;
        ++checked;
        saved += grouped.stats.exactConfigs < grouped.stats.allConfigs;
        severalRounds += grouped.stats.rounds > 1;
      }
  // Both ways of ending are exercised: proven early, and after joining.
  EXPECT_GT(saved, 0);
  EXPECT_GT(severalRounds, 0);
  // Dropping is exercised, with and without seeds.
  EXPECT_GT(dropped, 0);
  EXPECT_GT(droppedSeeded, 0);
  std::printf("[ grouped ] %d graphs: %d proven before every group joined, "
              "%d needed more than one round; %lld configurations dropped, "
              "%lld with an optimal seed\n",
              checked, saved, severalRounds, (long long)dropped,
              (long long)droppedSeeded);
}

// A graph too wide for exact elimination: the rounds with stand-ins only
// learn that (exactOnly), every group joins, and the last round gives the
// full search's bound and choice, the same as searching the whole graph.
TEST(GroupedSearch, TooWideGraphsEndAsTheFullSearch) {
  std::mt19937 rng(20261206);
  int checked = 0;
  for (int trial = 0; trial < 12; ++trial) {
    SearchGraph g = randomGraph(rng, Shape::Dense, 5 + trial % 2, 8);
    SearchOptions tight;
    tight.enumerationLimit = 1;
    tight.factorLimit = 10;
    tight.miniBucketLimit = 64;
    KnownCosts costs(g, rng, 2 + trial % 3, 0.5);
    SearchResult full = searchOptimal(g, tight);
    if (full.stats.exact)
      continue;
    SearchResult grouped = searchByGroups(costs, tight);
    std::string what = "trial " + std::to_string(trial);
    EXPECT_FALSE(grouped.stats.exact) << what;
    EXPECT_EQ(grouped.choice, full.choice) << what;
    EXPECT_DOUBLE_EQ(grouped.stats.lowerBound, full.stats.lowerBound) << what;
    EXPECT_EQ(grouped.stats.exactConfigs, grouped.stats.allConfigs) << what;
    // Asked only whether it is exact, the search says no and builds no
    // bound.
    SearchOptions only = tight;
    only.exactOnly = true;
    SearchResult quick = searchOptimal(g, only);
    EXPECT_FALSE(quick.stats.exact) << what;
    EXPECT_EQ(quick.stats.lowerBound, 0) << what;
    ++checked;
  }
  EXPECT_GE(checked, 8);
}

} // namespace
