//===- SearchGraph.h - min-sum graph of configuration choices --*- C++ -*-===//
//
// Plain C++ (no MLIR, no LLVM): the search works on numbers only, so it can be
// tested on random graphs against brute force and reused elsewhere.
//
// Each node picks one of its configurations; the cost of a choice is the sum
// of every node's cost for its configuration plus every edge's cost for the
// configurations of its two endpoints. This is exactly the paper's
// t_o = sum(t_c + t_s) + sum(t_x), which is what makes elimination exact.
//
//===----------------------------------------------------------------------===//

#ifndef HD_SEARCH_SEARCHGRAPH_H
#define HD_SEARCH_SEARCHGRAPH_H

#include <cstdint>
#include <string>
#include <vector>

namespace hd {

struct SearchEdge {
  int from = 0, to = 0;
  /// cost[i * numConfigs(to) + j]: `from` in config i, `to` in config j.
  std::vector<double> cost;
};

struct SearchGraph {
  /// nodeCost[n][i]: cost of node n in configuration i.
  std::vector<std::vector<double>> nodeCost;
  std::vector<SearchEdge> edges;

  int numNodes() const { return static_cast<int>(nodeCost.size()); }
  int numConfigs(int node) const {
    return static_cast<int>(nodeCost[node].size());
  }
  /// Adds a node with its cost table; returns its index.
  int addNode(std::vector<double> cost);
  void addEdge(int from, int to, std::vector<double> cost);
  /// Empty when the graph is well formed, else what is wrong.
  std::string validate() const;
};

/// Total cost of a choice (one configuration index per node).
double evaluate(const SearchGraph &graph, const std::vector<int> &choice);

} // namespace hd

#endif // HD_SEARCH_SEARCHGRAPH_H
