//===- CostTables.h - cost tables of a layer graph -----------*- C++ -*-===//
//
// Turns a layer graph, its candidate configurations and a cost model into the
// search's graph of tables: node = t_c + t_s per configuration, edge = t_x
// per pair of configurations. Layers with equal signatures and candidates
// share one node table, and edges whose consumers read the same boxes share
// one edge table (Inception repeats its blocks), so each distinct table is
// computed once, on every core, and only as far as the search asks.
//
// For the grouped search (GroupedSearch.h) a layer's configurations are
// grouped by task count and channel degree, most tasks first; on more than
// 32 devices each starts as one stand-in and is searched exactly once
// picked (startsExact). A group that runs on k devices leaves devices k and
// above idle, which bounds its transfers from below without computing
// them: a consumer task there must receive its whole box, and a producer
// task there must send every element the consumer reads. A table's bounds
// are computed together, on every core.
//
// The members are defined by job: the frame and single entries in
// CostTables.cpp, which tables are shared in TableSharing.cpp, filling
// them in TableFill.cpp, group bounds in GroupBounds.cpp and the memory
// graph in MemoryTables.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef HD_STRATEGY_COSTTABLES_H
#define HD_STRATEGY_COSTTABLES_H

#include "hd/CostModel/CostModel.h"
#include "hd/Search/GroupedSearch.h"
#include "hd/Search/SearchGraph.h"

#include <atomic>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace hd {

/// One activation edge of the layer graph.
struct LayerEdge {
  int producer, consumer;
  unsigned operand;
};

class CostTables : public GroupedCosts {
public:
  /// Node costs are t_c + syncWeight * t_s: 1 is the paper's objective;
  /// below 1 counts only the share of each sum that the step waits for.
  CostTables(const CostModel &model, const LayerGraph &graph,
             std::vector<std::vector<ParallelConfig>> candidates,
             double syncWeight = 1);

  const std::vector<LayerEdge> &getEdges() const { return edges; }

  /// The search graph: one node per layer, one edge per LayerEdge (same
  /// order). Computes every table.
  SearchGraph buildSearchGraph();

  // The grouped search's view: nodes are layers, edges LayerEdges.
  int numNodes() const override { return int(graph.layers.size()); }
  const std::vector<double> &nodeCosts(int l) override { return nodeTable(l); }
  const std::vector<int> &groups(int l) override { return groupOf[l]; }
  int numEdges() const override { return int(edges.size()); }
  std::pair<int, int> edgeEnds(int e) const override {
    return {edges[e].producer, edges[e].consumer};
  }
  void fill(std::vector<EdgeBlock> &blocks) override;
  double groupBound(int e, bool groupAtFrom, int group, int config) override;
  double standInsBound(int e, int fromGroup, int toGroup) override;
  bool startsExact(int l, int group) override;
  std::vector<std::vector<std::vector<int>>> seeds() override;

  /// The cost of a whole choice (one candidate index per layer).
  double evaluate(const std::vector<int> &choice);

  /// Called from any core as table fills go: entries done of the fill's
  /// total (0 when one starts).
  void setProgress(std::function<void(int64_t, int64_t)> onEntries) {
    progress = std::move(onEntries);
  }

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

private:
  /// A distinct edge table, filled on demand: a row is empty until one of
  /// its entries is needed, and NaN marks an entry not computed yet.
  struct Table {
    int edge;     // one edge that has it
    size_t width; // the consumer's candidates
    std::vector<std::vector<double>> rows;
    /// Lower bounds of the grouped search (groupBound, standInsBound),
    /// all computed at once when the first is asked for: per producer
    /// candidate, one per consumer group (vsRow); per consumer candidate,
    /// one per producer group (vsCol); per pair of producer and consumer
    /// groups, the least of vsRow over the producer group's members
    /// (fromProducer) and of vsCol over the consumer group's
    /// (fromConsumer).
    bool boundsReady = false;
    std::vector<std::vector<double>> vsRow, vsCol, fromProducer, fromConsumer;
  };

  /// The columns of `cols` that some row of `rows` of `t` has yet to
  /// compute; adds to `entries` how many entries of the block those are.
  static std::vector<int> missingColumns(const Table &t,
                                         const std::vector<int> &rows,
                                         const std::vector<int> &cols,
                                         int64_t &entries);
  const std::vector<double> &nodeTable(int l);
  /// Gives every edge its distinct table (edgeKey), on every core.
  void assignTables();
  /// Computes the entries of table `t` in rows x `missing` (its
  /// missingColumns) not yet computed; `filled` counts them for the
  /// progress line. `all`, where given, holds the consumer's boxes for
  /// every candidate.
  void fillTable(Table &t, const std::vector<int> &rows,
                 const std::vector<int> &missing, std::atomic<int64_t> &filled,
                 int64_t total,
                 const std::vector<ConsumerTiles> *all = nullptr);
  /// The consumer's boxes for every candidate of `t`'s edge, on every core.
  std::vector<ConsumerTiles> allColumns(const Table &t) const;
  /// Computes every bound of `t`, on every core.
  void prepareBounds(Table &t);
  void prepareBounds(Table &t, const std::vector<ConsumerTiles> &colTiles);
  double nodeMemory(int l, int c) const;
  double edgeMemory(int e, const ProducerGrid &producer,
                    const ConsumerTiles &tiles) const;
  /// Whether layer `l` reads exactly its own output tile from `operand`.
  bool readsOwnTile(int l, unsigned operand) const;
  /// What layer `l`'s node table depends on; equal keys share one table.
  std::string nodeKey(int l) const;
  /// What edge `e`'s table depends on; equal keys share one table.
  std::string edgeKey(int e) const;

  const CostModel &model;
  const LayerGraph &graph;
  std::vector<std::vector<ParallelConfig>> candidates;
  double syncWeight;
  std::vector<LayerEdge> edges;
  std::vector<int> readers; // per layer: edges out of it
  std::vector<std::string> nodeKeys;
  std::vector<std::string> edgeKeys; // empty until a table is needed
  std::vector<int> tableOf;          // per edge; empty until then
  std::vector<Table> tables;
  std::map<std::string, std::vector<double>> nodeCache;
  /// Per layer: each candidate's group, and each group's task count.
  std::vector<std::vector<int>> groupOf;
  std::vector<std::vector<int64_t>> groupTasks;
  std::function<void(int64_t, int64_t)> progress;
  std::map<std::string, std::vector<double>> nodeMemoryCache, edgeMemoryCache;
};

} // namespace hd

#endif // HD_STRATEGY_COSTTABLES_H
