//===- ConstrainedSearchTest.cpp - the capacity search vs brute force -----===//
//
// The oracle tries every combination. Each random DAG (RandomGraphs.h) gets
// a second random graph of its shape, the memory, and a capacity drawn from
// below the smallest memory (nothing fits) to above the fastest choice's
// (the capacity does not bind), mostly in between, where it does.
//
//===----------------------------------------------------------------------===//

#include "RandomGraphs.h"

#include "hd/Search/ConstrainedSearch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

using namespace hd;
using namespace hd::random_graphs;

namespace {

constexpr int64_t kBruteForceLimit = 300'000;

struct Counts {
  int checked = 0, nothingFits = 0, binds = 0, free = 0, branched = 0;
};

void expectSameAsBruteForce(const SearchGraph &time, const SearchGraph &memory,
                            double capacity, const std::string &what,
                            Counts &counts) {
  std::optional<ConstrainedResult> brute =
      bruteForceWithinCapacity(time, memory, capacity, kBruteForceLimit);
  ASSERT_TRUE(brute) << what;
  ConstrainedResult found = searchWithinCapacity(time, memory, capacity);
  ++counts.checked;
  ASSERT_EQ(found.feasible, brute->feasible) << what;
  if (!brute->feasible) {
    ++counts.nothingFits;
    // The same smallest memory, and the choice that needs it.
    EXPECT_TRUE(found.minMemoryExact) << what;
    EXPECT_NEAR(found.smallestMemory, brute->smallestMemory,
                1e-9 * brute->smallestMemory)
        << what;
    EXPECT_NEAR(evaluate(memory, found.smallestChoice), found.smallestMemory,
                1e-9 * found.smallestMemory)
        << what;
    return;
  }
  EXPECT_EQ(found.result.stats.capacityBinds,
            brute->result.stats.capacityBinds)
      << what;
  (brute->result.stats.capacityBinds ? counts.binds : counts.free)++;
  counts.branched += found.result.stats.subproblems > 1;
  EXPECT_TRUE(found.result.stats.exact) << what;
  EXPECT_NEAR(found.result.cost, brute->result.cost,
              1e-9 * std::max(1.0, brute->result.cost))
      << what;
  // The choice is what the result says, and fits.
  EXPECT_NEAR(evaluate(time, found.result.choice), found.result.cost,
              1e-9 * std::max(1.0, found.result.cost))
      << what;
  EXPECT_NEAR(evaluate(memory, found.result.choice), found.memory, 1e-9)
      << what;
  EXPECT_LE(found.memory, capacity) << what;
  EXPECT_NEAR(found.result.stats.lowerBound, found.result.cost,
              1e-9 * std::max(1.0, found.result.cost))
      << what;
}

} // namespace

class ConstrainedVsBruteForce : public ::testing::TestWithParam<int64_t> {};

TEST_P(ConstrainedVsBruteForce, RandomDagsAndCapacities) {
  int64_t devices = GetParam();
  std::mt19937 rng(2026 + devices);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Counts counts;
  for (Shape shape : {Shape::Chain, Shape::Diamond, Shape::BranchJoin,
                      Shape::RandomDag, Shape::Dense}) {
    for (int trial = 0; trial < 30; ++trial) {
      int maxNodes = shape == Shape::Dense ? 5 : 7;
      int nodes = 2 + trial % (maxNodes - 1);
      SearchGraph time = randomGraph(rng, shape, nodes, devices);
      if (combinationCount(time) > kBruteForceLimit)
        continue;
      SearchGraph memory = randomLike(rng, time);
      // The capacity's range: from the least memory any choice needs to
      // the memory of the fastest choice.
      std::optional<ConstrainedResult> open =
          bruteForceWithinCapacity(time, memory, INFINITY, kBruteForceLimit);
      double lo = open->smallestMemory, hi = open->memory;
      double capacity = lo + (hi - lo) * (1.2 * u(rng) - 0.1);
      expectSameAsBruteForce(time, memory, capacity,
                             "shape " + std::to_string(int(shape)) +
                                 " trial " + std::to_string(trial) +
                                 " capacity " + std::to_string(capacity),
                             counts);
    }
  }
  std::printf("%d checked: %d nothing fits, %d free, %d bind, %d branched\n",
              counts.checked, counts.nothingFits, counts.free, counts.binds,
              counts.branched);
  // Every outcome occurs, most often a binding capacity, which branching
  // sometimes has to settle.
  EXPECT_GE(counts.checked, 100);
  EXPECT_GE(counts.nothingFits, 3);
  EXPECT_GE(counts.free, 3);
  EXPECT_GE(counts.binds, counts.checked / 2);
  EXPECT_GE(counts.branched, 3);
}

INSTANTIATE_TEST_SUITE_P(Devices, ConstrainedVsBruteForce,
                         ::testing::Values(2, 4, 6));

// Memory the choice does not change: the capacity either admits the
// unconstrained optimum or nothing.
TEST(ConstrainedSearch, FlatMemory) {
  std::mt19937 rng(7);
  SearchGraph time = randomGraph(rng, Shape::Chain, 5, 4);
  SearchGraph memory = time;
  for (std::vector<double> &t : memory.nodeCost)
    std::fill(t.begin(), t.end(), 1.0);
  for (SearchEdge &e : memory.edges)
    std::fill(e.cost.begin(), e.cost.end(), 0.0);
  SearchResult open = searchOptimal(time);
  ConstrainedResult fits = searchWithinCapacity(time, memory, 5.0);
  ASSERT_TRUE(fits.feasible);
  EXPECT_FALSE(fits.result.stats.capacityBinds);
  EXPECT_NEAR(fits.result.cost, open.cost, 1e-12);
  EXPECT_EQ(fits.searches, 1);
  ConstrainedResult none = searchWithinCapacity(time, memory, 4.5);
  EXPECT_FALSE(none.feasible);
  EXPECT_DOUBLE_EQ(none.smallestMemory, 5.0);
}

// A budget too small to settle a binding capacity leaves a gap: the choice
// still fits, and the lower bound is below its cost, never above the
// optimum.
TEST(ConstrainedSearch, BudgetReportsGap) {
  std::mt19937 rng(11);
  int gaps = 0;
  for (int trial = 0; trial < 40; ++trial) {
    SearchGraph time = randomGraph(rng, Shape::RandomDag, 7, 4);
    if (combinationCount(time) > kBruteForceLimit)
      continue;
    SearchGraph memory = randomLike(rng, time);
    std::optional<ConstrainedResult> open =
        bruteForceWithinCapacity(time, memory, INFINITY, kBruteForceLimit);
    double capacity = (open->smallestMemory + open->memory) / 2;
    std::optional<ConstrainedResult> brute =
        bruteForceWithinCapacity(time, memory, capacity, kBruteForceLimit);
    ConstrainedOptions options;
    options.maxSubproblems = 1;
    ConstrainedResult found =
        searchWithinCapacity(time, memory, capacity, options);
    ASSERT_EQ(found.feasible, brute->feasible);
    if (!found.feasible)
      continue;
    EXPECT_LE(found.memory, capacity);
    EXPECT_GE(found.result.cost, brute->result.cost - 1e-9);
    EXPECT_LE(found.result.stats.lowerBound, brute->result.cost + 1e-9);
    if (!found.result.stats.exact) {
      ++gaps;
      EXPECT_LT(found.result.stats.lowerBound, found.result.cost);
    }
  }
  EXPECT_GE(gaps, 1);
}
