//===- MemoryTables.cpp - the bytes a strategy holds, as tables -----------===//
//
// The memory graph has the time graph's nodes and edges, with each
// device's bytes in place of time: the constrained search keeps the
// strategy's memory bound within the machine's capacity, and the planner
// names the layer that takes most of it when nothing fits. Shared like the
// time tables, with the edge's key extended by whether its producer has
// other readers.
//
//===----------------------------------------------------------------------===//

#include "hd/Strategy/CostTables.h"

#include "ParallelFor.h"

#include <set>

namespace hd {

double CostTables::nodeMemory(int l, int c) const {
  return double(model.layerMemoryBytes(graph.layers[l], candidates[l][c]));
}

double CostTables::edgeMemory(int e, const ProducerGrid &producer,
                              const ConsumerTiles &tiles) const {
  return double(CostModel::inputCopyBytes(producer, tiles,
                                          readers[edges[e].producer] == 1));
}

SearchGraph CostTables::buildMemoryGraph() {
  // As the time tables: each distinct table once, on every core. An
  // edge's bytes also depend on whether its producer has other readers.
  assignTables();
  auto memoryKey = [&](size_t e) {
    return edgeKeys[e] + (readers[edges[e].producer] == 1 ? "|only" : "|");
  };
  std::vector<int> nodes, todo;
  std::set<std::string> seen;
  for (size_t l = 0; l < graph.layers.size(); ++l)
    if (nodeMemoryCache[nodeKeys[l]].empty() && seen.insert(nodeKeys[l]).second)
      nodes.push_back(static_cast<int>(l));
  for (size_t e = 0; e < edges.size(); ++e)
    if (edgeMemoryCache[memoryKey(e)].empty() &&
        seen.insert(memoryKey(e)).second)
      todo.push_back(static_cast<int>(e));
  std::vector<std::vector<double>> nodeTables(nodes.size()),
      edgeTables(todo.size());
  parallelFor(nodes.size() + todo.size(), [&](size_t i) {
    if (i < nodes.size()) {
      int l = nodes[i];
      for (size_t c = 0; c < candidates[l].size(); ++c)
        nodeTables[i].push_back(nodeMemory(l, c));
      return;
    }
    int e = todo[i - nodes.size()];
    const LayerEdge &edge = edges[e];
    const auto &pcs = candidates[edge.producer];
    std::vector<ConsumerTiles> columns;
    for (const ParallelConfig &c : candidates[edge.consumer])
      columns.push_back(
          consumerTiles(graph.layers[edge.consumer], edge.operand, c));
    std::vector<double> &table = edgeTables[i - nodes.size()];
    for (const ParallelConfig &p : pcs) {
      ProducerGrid row = producerGrid(graph.layers[edge.producer], p);
      for (const ConsumerTiles &column : columns)
        table.push_back(edgeMemory(e, row, column));
    }
  });
  for (size_t i = 0; i < nodes.size(); ++i)
    nodeMemoryCache[nodeKeys[nodes[i]]] = std::move(nodeTables[i]);
  for (size_t i = 0; i < todo.size(); ++i)
    edgeMemoryCache[memoryKey(todo[i])] = std::move(edgeTables[i]);

  SearchGraph g;
  for (size_t l = 0; l < graph.layers.size(); ++l)
    g.addNode(nodeMemoryCache[nodeKeys[l]]);
  for (size_t e = 0; e < edges.size(); ++e)
    g.addEdge(edges[e].producer, edges[e].consumer,
              edgeMemoryCache[memoryKey(e)]);
  return g;
}

std::vector<double>
CostTables::layerMemory(const std::vector<int> &choice) const {
  std::vector<double> bytes(graph.layers.size());
  for (size_t l = 0; l < graph.layers.size(); ++l)
    bytes[l] = nodeMemory(l, choice[l]);
  for (size_t e = 0; e < edges.size(); ++e) {
    const LayerEdge &edge = edges[e];
    bytes[edge.consumer] += edgeMemory(
        e,
        producerGrid(graph.layers[edge.producer],
                     candidates[edge.producer][choice[edge.producer]]),
        consumerTiles(graph.layers[edge.consumer], edge.operand,
                      candidates[edge.consumer][choice[edge.consumer]]));
  }
  return bytes;
}

} // namespace hd
