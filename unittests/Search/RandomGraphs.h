//===- RandomGraphs.h - random search graphs of CNN shapes ------*- C++ -*-===//
//
// The search tests' inputs: random DAGs of the shapes CNNs have (chains,
// diamonds, branches and joins, skip connections, DenseNet's all-to-all)
// with random cost tables whose sizes are the configuration counts of real
// 2-D and 4-D layers.
//
//===----------------------------------------------------------------------===//

#ifndef HD_UNITTESTS_SEARCH_RANDOMGRAPHS_H
#define HD_UNITTESTS_SEARCH_RANDOMGRAPHS_H

#include "hd/Search/SearchGraph.h"
#include "hd/Tiling/ParallelConfig.h"

#include <random>

namespace hd::random_graphs {

inline std::vector<double> randomTable(std::mt19937 &rng, size_t n) {
  std::uniform_real_distribution<double> u(0.0, 10.0);
  std::vector<double> t(n);
  for (double &v : t)
    v = u(rng);
  return t;
}

enum class Shape { Chain, Diamond, BranchJoin, RandomDag, Dense };

/// Builds a DAG of `nodes` nodes; each node's configuration count is that of
/// a 2-D or 4-D layer (small enough for brute force) on `devices` devices.
inline SearchGraph randomGraph(std::mt19937 &rng, Shape shape, int nodes,
                               int64_t devices) {
  int64_t small = enumerateConfigs({64, 64}, devices).size();
  int64_t big = enumerateConfigs({64, 64, 8, 8}, devices).size();
  SearchGraph g;
  std::uniform_int_distribution<int> coin(0, 3);
  for (int n = 0; n < nodes; ++n)
    g.addNode(randomTable(rng, coin(rng) == 0 && devices <= 4 ? big : small));
  auto edge = [&](int a, int b) {
    g.addEdge(a, b, randomTable(rng, g.numConfigs(a) * g.numConfigs(b)));
  };
  switch (shape) {
  case Shape::Chain:
    for (int n = 1; n < nodes; ++n)
      edge(n - 1, n);
    break;
  case Shape::Diamond: // 0 -> {1..k} -> last, plus a tail.
    for (int n = 1; n + 1 < nodes; ++n) {
      edge(0, n);
      edge(n, nodes - 1);
    }
    break;
  case Shape::BranchJoin: { // Inception-like: branches of length 1-2.
    int n = 1;
    while (n + 1 < nodes) {
      if (n + 2 < nodes && coin(rng) < 2) {
        edge(0, n);
        edge(n, n + 1);
        edge(n + 1, nodes - 1);
        n += 2;
      } else {
        edge(0, n);
        edge(n, nodes - 1);
        n += 1;
      }
    }
    if (coin(rng) == 0)
      edge(0, nodes - 1); // A residual skip.
    break;
  }
  case Shape::RandomDag:
    for (int n = 1; n < nodes; ++n) {
      std::uniform_int_distribution<int> pick(0, n - 1);
      edge(pick(rng), n);
      if (coin(rng) == 0)
        edge(pick(rng), n); // A join (possibly a parallel edge).
    }
    break;
  case Shape::Dense: // DenseNet-like: every node feeds every later one.
    for (int a = 0; a < nodes; ++a)
      for (int b = a + 1; b < nodes; ++b)
        edge(a, b);
    break;
  }
  return g;
}

/// A graph of `g`'s shape (nodes, configurations, edges) with new random
/// tables: a second objective over the same choices.
inline SearchGraph randomLike(std::mt19937 &rng, const SearchGraph &g) {
  SearchGraph out;
  for (int n = 0; n < g.numNodes(); ++n)
    out.addNode(randomTable(rng, g.numConfigs(n)));
  for (const SearchEdge &e : g.edges)
    out.addEdge(e.from, e.to, randomTable(rng, e.cost.size()));
  return out;
}

} // namespace hd::random_graphs

#endif // HD_UNITTESTS_SEARCH_RANDOMGRAPHS_H
