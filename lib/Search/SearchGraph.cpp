//===- SearchGraph.cpp - min-sum graph of configuration choices -----------===//

#include "hd/Search/SearchGraph.h"

#include <cmath>
#include <sstream>

namespace hd {

int SearchGraph::addNode(std::vector<double> cost) {
  nodeCost.push_back(std::move(cost));
  return numNodes() - 1;
}

void SearchGraph::addEdge(int from, int to, std::vector<double> cost) {
  edges.push_back({from, to, std::move(cost)});
}

std::string SearchGraph::validate() const {
  std::ostringstream os;
  for (int n = 0; n < numNodes(); ++n) {
    if (nodeCost[n].empty())
      return (os << "node " << n << " has no configurations", os.str());
    for (double v : nodeCost[n])
      if (!std::isfinite(v))
        return (os << "node " << n << " has a non-finite cost", os.str());
  }
  for (size_t e = 0; e < edges.size(); ++e) {
    const SearchEdge &edge = edges[e];
    if (edge.from < 0 || edge.to < 0 || edge.from >= numNodes() ||
        edge.to >= numNodes() || edge.from == edge.to)
      return (os << "edge " << e << " has bad endpoints", os.str());
    size_t want = static_cast<size_t>(numConfigs(edge.from)) *
                  static_cast<size_t>(numConfigs(edge.to));
    if (edge.cost.size() != want)
      return (os << "edge " << e << " has " << edge.cost.size()
                 << " costs, expected " << want,
              os.str());
    for (double v : edge.cost)
      if (!std::isfinite(v))
        return (os << "edge " << e << " has a non-finite cost", os.str());
  }
  return "";
}

double evaluate(const SearchGraph &graph, const std::vector<int> &choice) {
  double total = 0;
  for (int n = 0; n < graph.numNodes(); ++n)
    total += graph.nodeCost[n][choice[n]];
  for (const SearchEdge &e : graph.edges)
    total += e.cost[static_cast<size_t>(choice[e.from]) *
                        graph.numConfigs(e.to) +
                    choice[e.to]];
  return total;
}

} // namespace hd
