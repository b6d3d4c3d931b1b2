//===- RunnersUp.cpp - each layer's best other configuration --------------===//
//
// The report says, for every layer, which other configuration would be
// fastest with the rest of the strategy as chosen, and what it would cost:
// how close the choice was. Read from the search's own tables, with group
// bounds ruling out most candidates before their entries are computed.
//
//===----------------------------------------------------------------------===//

#include "hd/Strategy/StrategyReport.h"

#include <algorithm>
#include <limits>

namespace hd {

std::vector<std::pair<int, double>> runnersUp(CostTables &tables,
                                              const std::vector<int> &choice) {
  const std::vector<LayerEdge> &edges = tables.getEdges();
  // Per layer: the edges into and out of it, in edge order.
  std::vector<std::vector<int>> edgesOf(tables.numNodes());
  for (size_t e = 0; e < edges.size(); ++e) {
    edgesOf[edges[e].producer].push_back(static_cast<int>(e));
    edgesOf[edges[e].consumer].push_back(static_cast<int>(e));
  }
  std::vector<std::pair<int, double>> out;
  for (int l = 0; l < tables.numNodes(); ++l) {
    // The layer's share of the iteration time in candidate c, with its
    // neighbours fixed.
    auto share = [&](int c) {
      double v = tables.nodeCost(l, c);
      for (int e : edgesOf[l]) {
        const LayerEdge &edge = edges[e];
        v += edge.producer == l ? tables.edgeCost(e, c, choice[edge.consumer])
                                : tables.edgeCost(e, choice[edge.producer], c);
      }
      return v;
    };
    // A lower bound on each candidate's share, so that those whose group
    // the search never filled are mostly ruled out without their tables.
    auto atLeast = [&](int c) {
      double v = tables.nodeCost(l, c);
      for (int e : edgesOf[l]) {
        const LayerEdge &edge = edges[e];
        bool producer = edge.producer == l;
        v += tables.groupBound(e, producer, tables.groups(l)[c],
                               producer ? choice[edge.consumer]
                                        : choice[edge.producer]);
      }
      return v;
    };
    std::vector<std::pair<double, int>> order;
    for (int c = 0; c < static_cast<int>(tables.groups(l).size()); ++c)
      if (c != choice[l])
        order.push_back({atLeast(c), c});
    std::sort(order.begin(), order.end());
    double current = share(choice[l]);
    int best = -1;
    double bestCost = std::numeric_limits<double>::infinity();
    for (auto [bound, c] : order) {
      if (bound > bestCost)
        break;
      double v = share(c);
      // Ties go to the first candidate, as a scan in order would.
      if (v < bestCost || (v == bestCost && c < best)) {
        bestCost = v;
        best = c;
      }
    }
    out.push_back({best, best < 0 ? 0.0 : bestCost - current});
  }
  return out;
}

} // namespace hd
