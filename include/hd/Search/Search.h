//===- Search.h - exact search by elimination ------------------*- C++ -*-===//
//
// The paper's Algorithm 1 plus the standard exact extensions:
//   1. edge elimination: parallel edges merge into one (tables add);
//   2. leaf elimination: a node with one neighbour folds into it;
//   3. node elimination: a node with two neighbours becomes an edge between
//      them, min over its configurations (O(C^3));
//   4. what remains (K nodes) is enumerated when its configuration space is
//      small, and otherwise solved by variable elimination (min-sum over
//      n-ary factors, smallest new factor first), still exact;
//   5. undo replays the eliminations backwards to pick every configuration.
// If even variable elimination would need a table above the size limit, the
// result is a heuristic upper bound and the stats say how far from optimal
// it can be (a lower bound is reported).
//
//===----------------------------------------------------------------------===//

#ifndef HD_SEARCH_SEARCH_H
#define HD_SEARCH_SEARCH_H

#include "hd/Search/SearchGraph.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hd {

struct SearchOptions {
  /// Enumerate the remaining nodes when their configuration space is at most
  /// this; use variable elimination above it.
  int64_t enumerationLimit = int64_t(1) << 22;
  /// Largest factor table variable elimination may build.
  int64_t factorLimit = int64_t(1) << 26;
  /// Above it, the largest table of the mini-bucket bound (MiniBucket.cpp).
  int64_t miniBucketLimit = int64_t(1) << 18;
  /// A graph too wide for exact elimination returns at once, marked not
  /// exact, with neither a bound nor a useful choice: searchByGroups widens
  /// such a graph to every configuration anyway.
  bool exactOnly = false;
  /// Also compute every configuration's min-marginal (SearchResult), where
  /// node, leaf and series elimination leave one node (a series-parallel
  /// graph). It keeps every eliminated table until the search ends, and
  /// costs about one more pass.
  bool minMarginals = false;
  /// searchByGroups calls it as each round starts: the round, and how many
  /// configurations it searches exactly out of all there are.
  std::function<void(int, int64_t, int64_t)> onRound;
};

struct SearchStats {
  int nodeEliminations = 0;
  int edgeEliminations = 0;
  int leafEliminations = 0;
  /// Nodes left after node/edge/leaf elimination (the paper's K).
  int remainingNodes = 0;
  /// Configurations of the remaining nodes that were enumerated (0 when
  /// variable elimination solved them).
  int64_t enumerated = 0;
  /// Largest table variable elimination built (0 when not used).
  int64_t largestFactor = 0;
  /// True when the result is provably optimal.
  bool exact = true;
  /// A lower bound on the optimum (equal to the cost when exact).
  double lowerBound = 0;
  /// Under a memory capacity (ConstrainedSearch.h): the fastest choice
  /// overall does not fit, and the branch-and-bound subproblems solved.
  bool capacityBinds = false;
  int subproblems = 0;
  /// Under searchByGroups (GroupedSearch.h): the reduced searches run, and
  /// how many configurations the last one held exactly out of all there
  /// are, and how many it proved in no optimal strategy.
  int rounds = 0;
  int64_t exactConfigs = 0;
  int64_t allConfigs = 0;
  int64_t droppedConfigs = 0;
};

struct SearchResult {
  std::vector<int> choice;
  double cost = 0;
  SearchStats stats;
  /// minMarginals[n][c]: the least cost of a strategy with node n in
  /// configuration c. Empty unless SearchOptions::minMarginals asked and
  /// the graph allowed it.
  std::vector<std::vector<double>> minMarginals;
};

/// Minimizes the graph's cost. The graph must validate.
SearchResult searchOptimal(const SearchGraph &graph,
                           const SearchOptions &options = {});

/// Tries every combination; nullopt when there are more than `limit`.
std::optional<SearchResult> searchBruteForce(const SearchGraph &graph,
                                             int64_t limit);

/// Number of combinations brute force would try, saturating at INT64_MAX.
int64_t combinationCount(const SearchGraph &graph);

} // namespace hd

#endif // HD_SEARCH_SEARCH_H
