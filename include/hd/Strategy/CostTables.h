//===- CostTables.h - cost tables of a layer graph for the search -*- C++
//-*-===//
//
// Turns a layer graph, its candidate configurations and a cost model into the
// search's graph of tables: node = t_c + t_s per configuration, edge = t_x
// per pair of configurations. Layers with equal signatures and candidates
// share one node table, and edges whose consumers read the same boxes share
// one edge table (Inception repeats its blocks), so each distinct table is
// computed once, on every core.
//
//===----------------------------------------------------------------------===//

#ifndef HD_STRATEGY_COSTTABLES_H
#define HD_STRATEGY_COSTTABLES_H

#include "hd/CostModel/CostModel.h"
#include "hd/Search/SearchGraph.h"

#include <map>
#include <string>
#include <vector>

namespace hd {

/// One activation edge of the layer graph.
struct LayerEdge {
  int producer, consumer;
  unsigned operand;
};

class CostTables {
public:
  CostTables(const CostModel &model, const LayerGraph &graph,
             std::vector<std::vector<ParallelConfig>> candidates);

  const std::vector<LayerEdge> &getEdges() const { return edges; }

  /// The search graph: one node per layer, one edge per LayerEdge (same
  /// order). Computes every table.
  SearchGraph buildSearchGraph();

  /// The memory graph of the same nodes and edges: the bytes the search
  /// bounds each device's peak with (CostModel::layerMemoryBytes and
  /// inputCopyBytes). Computes every table.
  SearchGraph buildMemoryGraph();
  /// Each layer's part of the memory bound of `choice`: its own bytes and
  /// the copies of its inputs; computed for that choice alone.
  std::vector<double> layerMemory(const std::vector<int> &choice) const;

  /// Cost of layer `l` in candidate `c` (t_c + t_s).
  double nodeCost(int l, int c);
  /// t_x of edge `e` with its producer in candidate `p`, consumer in `c`.
  double edgeCost(int e, int p, int c);

  /// For each layer: the best other candidate with every other layer fixed
  /// as in `choice`, and how much slower the iteration would be; -1 when the
  /// layer has a single candidate.
  std::vector<std::pair<int, double>> runnersUp(const std::vector<int> &choice);

private:
  const std::vector<double> &nodeTable(int l);
  const std::vector<double> &edgeTable(int e);
  std::vector<double> computeEdgeTable(int e) const;
  double nodeMemory(int l, int c) const;
  double edgeMemory(int e, const ProducerGrid &producer,
                    const ConsumerTiles &tiles) const;
  /// Whether layer `l` reads exactly its own output tile from `operand`.
  bool readsOwnTile(int l, unsigned operand) const;
  /// What edge `e`'s table depends on; equal keys share one table.
  std::string edgeKey(int e) const;

  const CostModel &model;
  const LayerGraph &graph;
  std::vector<std::vector<ParallelConfig>> candidates;
  std::vector<LayerEdge> edges;
  std::vector<std::vector<int>> edgesOf; // per layer: incident edge indices
  std::vector<int> readers;               // per layer: edges out of it
  std::vector<std::string> nodeKeys;
  std::vector<std::string> edgeKeys; // empty until a table is needed
  std::map<std::string, std::vector<double>> nodeCache, edgeCache;
  std::map<std::string, std::vector<double>> nodeMemoryCache, edgeMemoryCache;
};

} // namespace hd

#endif // HD_STRATEGY_COSTTABLES_H
