//===- Eliminator.h - one search by elimination, by stage -------*- C++ -*-===//
//
// The state searchOptimal (Search.h) carries through its stages, each in a
// file of its own: the degree <= 2 reductions (GraphReductions.cpp), then
// for the nodes they leave either enumeration (Enumeration.cpp) or variable
// elimination (VariableElimination.cpp) in an order chosen from the
// factors' scopes (EliminationOrder.cpp), or, for a graph too wide for
// that, the mini-bucket bound and a choice (MiniBucket.cpp); Search.cpp runs
// them and undoes the eliminations. Private to the search library.
//
//===----------------------------------------------------------------------===//

#ifndef HD_LIB_SEARCH_ELIMINATOR_H
#define HD_LIB_SEARCH_ELIMINATOR_H

#include "hd/Search/Search.h"

#include "MinMarginals.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace hd::elimination {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline int64_t saturatingMul(int64_t a, int64_t b) {
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a)
    return std::numeric_limits<int64_t>::max();
  return a * b;
}

/// A factor over any number of nodes: the remaining graph once degree <= 2
/// eliminations stop. table[index], index row-major over `vars` (last var
/// fastest).
struct Factor {
  std::vector<int> vars;
  std::vector<int64_t> dims;
  std::vector<double> table;
};

/// One elimination, as undo needs it: the eliminated node's best
/// configuration for every configuration of the nodes it depended on.
struct Elimination {
  int node;
  std::vector<int> scope;    // nodes whose choice determines `node`'s
  std::vector<int64_t> dims; // their configuration counts
  std::vector<int> argmin;   // row-major over `scope`
};

/// Undo: replays eliminations backwards, each node taking its best
/// configuration given the nodes it was folded into.
void undo(const std::vector<Elimination> &eliminations,
          std::vector<int> &choice);

/// Odometer over the configurations of `vars`; returns false after the last.
bool advance(std::vector<int> &assign, const std::vector<int64_t> &dims);

/// The entry of `f` that `choice` (one configuration per node) selects.
double factorValue(const Factor &f, const std::vector<int> &choice);

class Eliminator {
public:
  Eliminator(const SearchGraph &graph, const SearchOptions &options)
      : graph(graph), options(options), unary(graph.nodeCost),
        adjacent(graph.numNodes()), alive(graph.numNodes(), true) {}

  SearchResult run();

private:
  int configs(int n) const { return graph.numConfigs(n); }

  /// The pairwise table oriented [a][b], created empty (zeros) if missing.
  std::vector<double> &pair(int a, int b, bool &transposed);
  void addPair(int a, int b, const std::vector<double> &table);
  std::vector<double> takePair(int a, int b); // oriented [a][b], removed

  void eliminateIsolated(int j);
  void eliminateLeaf(int j);
  void eliminateSeriesNode(int j);
  void reduceDegreeTwo();
  void solveRemaining(std::vector<int> &choice);
  /// Tries every configuration of the `remaining` nodes (`space` of them)
  /// against `factors`, into remainingChoice.
  void enumerateRemaining(const std::vector<int> &remaining,
                          const std::vector<Factor> &factors, int64_t space);
  /// The nodes of `vars` in min-weight order (each time the one whose new
  /// factor is smallest), from the factors' scopes alone, and the largest
  /// factor that order builds.
  std::pair<std::vector<int>, int64_t>
  eliminationOrder(const std::vector<Factor> &factors,
                   const std::vector<int> &vars) const;
  /// The factor over the touching factors' other nodes: the least sum over
  /// x's configurations, and (when asked) which one.
  Factor minimizeOut(const std::vector<const Factor *> &touching, int x,
                     std::vector<int> *argmin,
                     std::vector<double> *leastPerX = nullptr) const;
  bool variableElimination(std::vector<Factor> factors,
                           std::vector<int> &remaining);
  void approximate(std::vector<Factor> factors, const std::vector<int> &order,
                   std::vector<int> &choice);

  const SearchGraph &graph;
  const SearchOptions &options;
  std::vector<std::vector<double>> unary;
  std::map<std::pair<int, int>, std::vector<double>> pairs; // key a < b
  std::vector<std::set<int>> adjacent;
  std::vector<bool> alive;
  std::vector<Elimination> eliminations;
  /// With options.minMarginals (else empty): every elimination's tables,
  /// and the pairs a series elimination has added to
  /// (EliminationStep::inDerived).
  std::vector<EliminationStep> steps;
  std::set<std::pair<int, int>> derived;
  bool derivedPair(int a, int b) const {
    return derived.count({std::min(a, b), std::max(a, b)}) > 0;
  }
  /// The choice of the nodes left after degree <= 2 eliminations.
  std::vector<int> remainingChoice;
  /// The optimal cost of the parts of the graph already reduced away as
  /// isolated nodes: part of any lower bound.
  double reducedCost = 0;
  int aliveCount = 0;
  SearchStats stats;
};

} // namespace hd::elimination

#endif // HD_LIB_SEARCH_ELIMINATOR_H
