//===- CostTables.cpp - cost tables of a layer graph for the search -------===//
//
// The tables' frame: the layer graph's edges, each layer's groups of
// configurations, the node tables, and single entries for a choice the
// search did not fill (a baseline, an imported strategy). Which tables are
// shared is TableSharing.cpp's, filling them TableFill.cpp's, their group
// bounds GroupBounds.cpp's and their memory MemoryTables.cpp's.
//
//===----------------------------------------------------------------------===//

#include "hd/Strategy/CostTables.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace hd {

CostTables::CostTables(const CostModel &model, const LayerGraph &graph,
                       std::vector<std::vector<ParallelConfig>> candidates,
                       double syncWeight)
    : model(model), graph(graph), candidates(std::move(candidates)),
      syncWeight(syncWeight), readers(graph.layers.size(), 0) {
  for (size_t l = 0; l < graph.layers.size(); ++l) {
    const Layer &layer = graph.layers[l];
    nodeKeys.push_back(nodeKey(static_cast<int>(l)));
    for (unsigned i = 0; i < layer.inputs.size(); ++i) {
      int p = layer.inputs[i].producer;
      if (p < 0)
        continue;
      edges.push_back({p, static_cast<int>(l), i});
      ++readers[p];
    }
  }
  edgeKeys.resize(edges.size()); // Computed when tables are (edgeKey).
  // Groups: candidates with the same task count and channel degree, most
  // tasks first. They cost about the same (the same compute per task and
  // the same replicas), so a group's cheapest member stands in well for
  // the others.
  for (const std::vector<ParallelConfig> &configs : this->candidates) {
    auto keyOf = [](const ParallelConfig &c) {
      return std::make_pair(-c.tasks(),
                            c.degrees.size() > 1 ? c.degrees[1] : 1);
    };
    std::vector<std::pair<int64_t, int64_t>> keys;
    for (const ParallelConfig &c : configs)
      keys.push_back(keyOf(c));
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    std::vector<int64_t> &tasks = groupTasks.emplace_back();
    for (auto [negTasks, channels] : keys)
      tasks.push_back(-negTasks);
    std::vector<int> &group = groupOf.emplace_back();
    for (const ParallelConfig &c : configs)
      group.push_back(int(std::lower_bound(keys.begin(), keys.end(), keyOf(c)) -
                          keys.begin()));
  }
}

const std::vector<double> &CostTables::nodeTable(int l) {
  std::vector<double> &table = nodeCache[nodeKeys[l]];
  if (table.empty())
    for (const ParallelConfig &c : candidates[l]) {
      LayerCost cost = model.layerCost(graph.layers[l], c);
      table.push_back(cost.computeMs + syncWeight * cost.syncMs);
    }
  return table;
}

double CostTables::nodeCost(int l, int c) { return nodeTable(l)[c]; }

double CostTables::edgeCost(int e, int p, int c) {
  std::vector<double> *row =
      tableOf.empty() ? nullptr : &tables[tableOf[e]].rows[p];
  if (row && !row->empty() && !std::isnan((*row)[c]))
    return (*row)[c];
  // Not computed yet (a baseline, an imported strategy, a runner-up): one
  // entry is cheaper than a row.
  const LayerEdge &edge = edges[e];
  double ms = model
                  .transferCost(graph.layers[edge.producer],
                                candidates[edge.producer][p],
                                graph.layers[edge.consumer], edge.operand,
                                candidates[edge.consumer][c])
                  .ms;
  if (row) {
    if (row->empty())
      row->assign(tables[tableOf[e]].width, std::nan(""));
    (*row)[c] = ms;
  }
  return ms;
}

double CostTables::evaluate(const std::vector<int> &choice) {
  double total = 0;
  for (size_t l = 0; l < graph.layers.size(); ++l)
    total += nodeCost(int(l), choice[l]);
  for (size_t e = 0; e < edges.size(); ++e)
    total +=
        edgeCost(int(e), choice[edges[e].producer], choice[edges[e].consumer]);
  return total;
}

SearchGraph CostTables::buildSearchGraph() {
  // Every edge's whole table, filled as the grouped search fills blocks.
  std::vector<EdgeBlock> blocks(edges.size());
  for (size_t e = 0; e < edges.size(); ++e) {
    EdgeBlock &b = blocks[e];
    b.edge = int(e);
    b.rows.resize(candidates[edges[e].producer].size());
    b.cols.resize(candidates[edges[e].consumer].size());
    std::iota(b.rows.begin(), b.rows.end(), 0);
    std::iota(b.cols.begin(), b.cols.end(), 0);
  }
  fill(blocks);
  SearchGraph g;
  for (size_t l = 0; l < graph.layers.size(); ++l)
    g.addNode(nodeTable(l));
  for (size_t e = 0; e < edges.size(); ++e)
    g.addEdge(edges[e].producer, edges[e].consumer, std::move(blocks[e].costs));
  return g;
}

bool CostTables::startsExact(int l, int group) {
  // A layer whose groups have two members or fewer on average (a
  // fully-connected layer's n x c splits: one per task count and channel
  // degree) gains nothing from stand-ins: it is exact whole, rather than
  // opening one group a round at the end of the search.
  if (candidates[l].size() <= 2 * groupTasks[l].size())
    return true;
  // On a few devices a round costs more than the tables of the groups on
  // the most devices, and the fastest plans use them: they start exact
  // (Inception-v3 on 16 devices: one round and 170 ms against 6 rounds
  // and 245 ms; on 32, 315 against 343 ms). On more, their tables get
  // filled against every group that joins later, and every group starts
  // as a stand-in (Inception-v3 on 64 devices: 0.7 against 0.9 s; on
  // 1024, 328 configurations exact in the first round against 51,528, and
  // 23 against 52 s).
  constexpr int64_t kMostTasksExactUpTo = 32;
  return groupTasks[l][group] == groupTasks[l][0] &&
         groupTasks[l][0] <= kMostTasksExactUpTo;
}

std::vector<std::vector<std::vector<int>>> CostTables::seeds() {
  // One family per task count: every layer on that many tasks, split
  // along samples and channels only. Such layers align their tiles, and
  // each has a handful of these configurations. The optimum on a cluster
  // often keeps one task count throughout: Inception-v3 on 1024 H200s
  // runs every layer on 128.
  std::set<int64_t> taskCounts;
  for (const std::vector<ParallelConfig> &configs : candidates)
    for (const ParallelConfig &c : configs)
      taskCounts.insert(c.tasks());
  auto samplesAndChannels = [](const ParallelConfig &c) {
    return std::all_of(c.degrees.begin() +
                           std::min<size_t>(2, c.degrees.size()),
                       c.degrees.end(), [](int64_t d) { return d == 1; });
  };
  std::vector<std::vector<std::vector<int>>> families;
  for (int64_t tasks : taskCounts) {
    std::vector<std::vector<int>> family;
    for (const std::vector<ParallelConfig> &configs : candidates) {
      std::vector<int> &subset = family.emplace_back();
      for (int c = 0; c < int(configs.size()); ++c)
        if (configs[c].tasks() == tasks && samplesAndChannels(configs[c]))
          subset.push_back(c);
      if (subset.empty())
        break; // a layer that cannot run on that many tasks this way
    }
    if (family.size() == candidates.size() && !family.back().empty())
      families.push_back(std::move(family));
  }
  return families;
}

} // namespace hd
