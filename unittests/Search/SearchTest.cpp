//===- SearchTest.cpp - elimination search vs brute force -----------------===//
//
// The oracle is brute force over every combination, on random DAGs of the
// shapes CNNs have (RandomGraphs.h) on 2, 4 and 6 devices.
//
//===----------------------------------------------------------------------===//

#include "RandomGraphs.h"

#include "hd/Search/Search.h"
#include "hd/Tiling/ParallelConfig.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace hd;
using namespace hd::random_graphs;

namespace {

void expectOptimal(const SearchGraph &g, const std::string &what) {
  ASSERT_EQ(g.validate(), "");
  std::optional<SearchResult> brute = searchBruteForce(g, 50'000'000);
  ASSERT_TRUE(brute) << what << ": too big for brute force";
  SearchResult found = searchOptimal(g);
  EXPECT_TRUE(found.stats.exact) << what;
  EXPECT_NEAR(found.cost, brute->cost, 1e-9 * std::max(1.0, brute->cost))
      << what;
  // The reported cost is the cost of the reported choice.
  EXPECT_NEAR(evaluate(g, found.choice), found.cost, 1e-9) << what;
}

} // namespace

TEST(ConfigCount, DivisorProducts) {
  // 4-D layer: products dividing 2, 4, 6, 16 over (n, c, h, w).
  EXPECT_EQ(enumerateConfigs({64, 64, 8, 8}, 2).size(), 5u);
  EXPECT_EQ(enumerateConfigs({64, 64, 8, 8}, 4).size(), 15u);
  EXPECT_EQ(enumerateConfigs({64, 64, 8, 8}, 6).size(), 25u);
  EXPECT_EQ(enumerateConfigs({64, 64, 32, 32}, 16).size(), 70u);
  // An 8x8 map cannot take h=16 or w=16.
  EXPECT_EQ(enumerateConfigs({64, 64, 8, 8}, 16).size(), 68u);
  EXPECT_EQ(enumerateConfigs({64, 64}, 6).size(), 9u);
  // Degrees never exceed the dimension: a 3x3 map allows h, w <= 3.
  for (const ParallelConfig &c : enumerateConfigs({32, 8, 3, 3}, 12)) {
    EXPECT_LE(c.degrees[2], 3);
    EXPECT_LE(c.degrees[3], 3);
    EXPECT_EQ(12 % c.tasks(), 0);
  }
  // Fewer tasks than devices are candidates.
  auto configs = enumerateConfigs({64, 64}, 12);
  EXPECT_NE(std::find(configs.begin(), configs.end(), ParallelConfig{{3, 1}}),
            configs.end());
  EXPECT_NE(std::find(configs.begin(), configs.end(), ParallelConfig{{1, 1}}),
            configs.end());
}

class SearchVsBruteForce : public ::testing::TestWithParam<int64_t> {};

TEST_P(SearchVsBruteForce, RandomDags) {
  int64_t devices = GetParam();
  std::mt19937 rng(1802 + devices);
  int checked = 0;
  for (Shape shape : {Shape::Chain, Shape::Diamond, Shape::BranchJoin,
                      Shape::RandomDag, Shape::Dense}) {
    for (int trial = 0; trial < 30; ++trial) {
      int maxNodes = shape == Shape::Dense ? 5 : 7;
      int nodes = 2 + trial % (maxNodes - 1);
      SearchGraph g = randomGraph(rng, shape, nodes, devices);
      if (combinationCount(g) > 20'000'000)
        continue;
      expectOptimal(g, "shape " + std::to_string(int(shape)) + " trial " +
                           std::to_string(trial));
      ++checked;
    }
  }
  EXPECT_GE(checked, 120);
}

INSTANTIATE_TEST_SUITE_P(Devices, SearchVsBruteForce,
                         ::testing::Values(2, 4, 6));

// A series-parallel graph reduces to one node; a dense one does not, and is
// still solved exactly by variable elimination.
TEST(Search, EliminationStats) {
  std::mt19937 rng(7);
  SearchGraph chain = randomGraph(rng, Shape::Chain, 6, 4);
  SearchResult r = searchOptimal(chain);
  EXPECT_EQ(r.stats.remainingNodes, 1);
  EXPECT_EQ(r.stats.nodeEliminations + r.stats.leafEliminations, 5);

  SearchGraph dense = randomGraph(rng, Shape::Dense, 5, 2);
  SearchOptions noEnumeration;
  noEnumeration.enumerationLimit = 1; // Force variable elimination.
  SearchResult ve = searchOptimal(dense, noEnumeration);
  EXPECT_GT(ve.stats.remainingNodes, 2);
  EXPECT_GT(ve.stats.largestFactor, 0);
  EXPECT_TRUE(ve.stats.exact);
  EXPECT_NEAR(ve.cost, searchBruteForce(dense, 1e8)->cost, 1e-9);
}

// Above the factor limit the search says it is not exact, returns a real
// choice, and brackets the optimum between its lower bound and its cost,
// for mini-buckets from a single table per node (the whole bucket fits) to
// one per factor.
TEST(Search, BoundWhenTooWide) {
  std::mt19937 rng(11);
  double gapSmall = 0, gapLarge = 0;
  for (int64_t miniBucket : {int64_t(2), int64_t(8), int64_t(1) << 18})
    for (int trial = 0; trial < 20; ++trial) {
      SearchGraph dense = randomGraph(rng, Shape::Dense, 6, 2);
      SearchOptions tight;
      tight.enumerationLimit = 1;
      tight.factorLimit = 4;
      tight.miniBucketLimit = miniBucket;
      SearchResult r = searchOptimal(dense, tight);
      double optimum = searchBruteForce(dense, 1e8)->cost;
      EXPECT_FALSE(r.stats.exact);
      EXPECT_NEAR(evaluate(dense, r.choice), r.cost, 1e-9);
      EXPECT_GE(r.cost, optimum - 1e-9);
      EXPECT_LE(r.stats.lowerBound, optimum + 1e-9) << miniBucket;
      (miniBucket == 2 ? gapSmall : gapLarge) += optimum - r.stats.lowerBound;
      // A bucket that fits whole is exact elimination: the bound is tight.
      if (miniBucket > 64) {
        EXPECT_NEAR(r.stats.lowerBound, optimum, 1e-9);
      }
    }
  // Larger mini-buckets bound more tightly.
  EXPECT_GT(gapSmall, gapLarge);
}

TEST(Search, ParallelEdgesMerge) {
  SearchGraph g;
  g.addNode({1, 5});
  g.addNode({5, 1});
  g.addEdge(0, 1, {0, 3, 3, 0});
  g.addEdge(0, 1, {0, 4, 4, 0});
  SearchResult r = searchOptimal(g);
  EXPECT_EQ(r.stats.edgeEliminations, 1);
  EXPECT_DOUBLE_EQ(r.cost, 6); // Both 0 (1+5) or both 1 (5+1); mixed >= 9.
}

TEST(Search, BruteForceRefusesAboveLimit) {
  std::mt19937 rng(3);
  SearchGraph g = randomGraph(rng, Shape::Chain, 7, 6);
  EXPECT_FALSE(searchBruteForce(g, 10).has_value());
}

TEST(SearchGraph, ValidateRejectsMalformed) {
  SearchGraph g;
  g.addNode({1, 2});
  g.addNode({});
  EXPECT_NE(g.validate(), "");
  SearchGraph h;
  h.addNode({1, 2});
  h.addNode({1});
  h.addEdge(0, 1, {1, 2, 3});
  EXPECT_NE(h.validate().find("expected 2"), std::string::npos);
}

// Parts of the graph that reduce to a constant still count in the bound:
// an isolated node next to a clique too wide for exact elimination.
TEST(Search, BoundIncludesSettledComponents) {
  std::mt19937 rng(5);
  for (double isolated : {100.0, -100.0}) {
    SearchGraph g = randomGraph(rng, Shape::Dense, 5, 2);
    g.addNode({isolated, isolated + 3});
    SearchOptions tight;
    tight.enumerationLimit = 1;
    tight.factorLimit = 10;
    SearchResult r = searchOptimal(g, tight);
    double optimum = searchBruteForce(g, 1e8)->cost;
    EXPECT_FALSE(r.stats.exact);
    EXPECT_LE(r.stats.lowerBound, optimum + 1e-9) << isolated;
    EXPECT_GE(r.cost, optimum - 1e-9);
    // The bound is not trivially loose: it includes the isolated node.
    EXPECT_GT(r.stats.lowerBound, isolated - 1e-9 + (isolated < 0 ? 0 : -50));
  }
}

// Every configuration's min-marginal against brute force: the least cost of
// all choices with that node in that configuration. Some graphs get an
// isolated node, a second connected part; a dense graph (not reduced to
// one node) gets none.
TEST(Search, MinMarginalsVsBruteForce) {
  std::mt19937 rng(20261206);
  int checked = 0, derivedPairs = 0;
  for (Shape shape : {Shape::Chain, Shape::Diamond, Shape::BranchJoin,
                      Shape::RandomDag, Shape::Dense})
    for (int trial = 0; trial < 24; ++trial) {
      int nodes = shape == Shape::Dense ? 4 : 2 + trial % 6;
      SearchGraph g = randomGraph(rng, shape, nodes, trial % 2 ? 4 : 2);
      if (trial % 4 == 3)
        g.addNode(randomTable(rng, 3));
      if (combinationCount(g) > 2'000'000)
        continue;
      SearchOptions withMarginals;
      withMarginals.minMarginals = true;
      SearchResult r = searchOptimal(g, withMarginals);
      std::string what = "shape " + std::to_string(int(shape)) + " trial " +
                         std::to_string(trial);
      if (r.stats.remainingNodes > 1) {
        EXPECT_TRUE(r.minMarginals.empty()) << what;
        continue;
      }
      ASSERT_EQ(int(r.minMarginals.size()), g.numNodes()) << what;
      std::vector<std::vector<double>> least(g.numNodes());
      for (int n = 0; n < g.numNodes(); ++n)
        least[n].assign(g.numConfigs(n),
                        std::numeric_limits<double>::infinity());
      std::vector<int> choice(g.numNodes(), 0);
      for (bool more = true; more;) {
        double v = evaluate(g, choice);
        for (int n = 0; n < g.numNodes(); ++n)
          least[n][choice[n]] = std::min(least[n][choice[n]], v);
        more = false;
        for (int n = g.numNodes(); n-- > 0;) {
          if (++choice[n] < g.numConfigs(n)) {
            more = true;
            break;
          }
          choice[n] = 0;
        }
      }
      for (int n = 0; n < g.numNodes(); ++n)
        for (int c = 0; c < g.numConfigs(n); ++c)
          EXPECT_NEAR(r.minMarginals[n][c], least[n][c], 1e-9 * least[n][c])
              << what << " node " << n << " config " << c;
      derivedPairs += r.stats.nodeEliminations > 1;
      ++checked;
    }
  EXPECT_GE(checked, 60);
  // Series steps that read another's table (the backward pass's pairs).
  EXPECT_GT(derivedPairs, 10);
}
