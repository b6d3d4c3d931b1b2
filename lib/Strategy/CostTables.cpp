//===- CostTables.cpp - cost tables of a layer graph for the search -------===//

#include "hd/Strategy/CostTables.h"

#include <atomic>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <thread>

namespace hd {

static std::string candidatesKey(const std::vector<ParallelConfig> &configs) {
  std::ostringstream os;
  for (const ParallelConfig &c : configs) {
    for (int64_t d : c.degrees)
      os << d << ",";
    os << ";";
  }
  return os.str();
}

static std::string shapeKey(const std::vector<int64_t> &shape) {
  std::ostringstream os;
  for (int64_t d : shape)
    os << d << "x";
  return os.str();
}

CostTables::CostTables(const CostModel &model, const LayerGraph &graph,
                       std::vector<std::vector<ParallelConfig>> candidates)
    : model(model), graph(graph), candidates(std::move(candidates)),
      edgesOf(graph.layers.size()), readers(graph.layers.size(), 0) {
  for (size_t l = 0; l < graph.layers.size(); ++l) {
    const Layer &layer = graph.layers[l];
    // A layer fed only by graph inputs skips its backward-data pass, which
    // the signature does not show.
    std::string inputs;
    for (const LayerInput &in : layer.inputs)
      inputs += in.producer < 0 ? 'g' : 'l';
    nodeKeys.push_back(layer.signature + "|" + inputs + "|" +
                       candidatesKey(this->candidates[l]));
    for (unsigned i = 0; i < layer.inputs.size(); ++i) {
      int p = layer.inputs[i].producer;
      if (p < 0)
        continue;
      int e = static_cast<int>(edges.size());
      edges.push_back({p, static_cast<int>(l), i});
      edgesOf[p].push_back(e);
      edgesOf[l].push_back(e);
      ++readers[p];
    }
  }
  edgeKeys.resize(edges.size()); // Computed when tables are (edgeKey).
}

std::string CostTables::edgeKey(int e) const {
  // t_x depends only on the producer's shape and configuration and on the
  // boxes the consumer's tasks read: edges that agree on those share a
  // table (Inception's parallel 1x1 convolutions of one input, every relu
  // or batch norm of one shape). A consumer that reads exactly its own tile
  // is keyed by shape alone; the others by a fingerprint of every box of
  // every candidate.
  const LayerEdge &edge = edges[e];
  std::string key = shapeKey(graph.layers[edge.producer].shape) + "|" +
                    candidatesKey(candidates[edge.producer]) + "|" +
                    candidatesKey(candidates[edge.consumer]) + "|";
  if (readsOwnTile(edge.consumer, edge.operand))
    return key + "own-tile";
  uint64_t h = 14695981039346656037ull, g = 1099511628211ull;
  auto mix = [&](int64_t v) {
    for (int b = 0; b < 8; ++b) {
      h = (h ^ ((v >> (8 * b)) & 0xff)) * 1099511628211ull;
      g = (g ^ ((v >> (8 * b)) & 0xff)) * 14029467366897019727ull;
    }
  };
  const Layer &consumer = graph.layers[edge.consumer];
  for (const ParallelConfig &c : candidates[edge.consumer]) {
    mix(-1);
    for (int64_t q = 0; q < c.tasks(); ++q) {
      TileBox box = consumer.inputBox(edge.operand,
                                      tileOfTask(consumer.shape, c.degrees, q));
      for (unsigned d = 0; d < box.rank(); ++d) {
        mix(box[d].lo);
        mix(box[d].hi);
      }
    }
  }
  return key + std::to_string(h) + ":" + std::to_string(g);
}

/// Runs body(0..n-1) on every core.
static void parallelFor(size_t n, const std::function<void(size_t)> &body) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < n;)
      body(i);
  };
  unsigned threads =
      std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), n));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(work);
  work();
  for (std::thread &t : pool)
    t.join();
}

bool CostTables::readsOwnTile(int l, unsigned operand) const {
  const Layer &layer = graph.layers[l];
  if (layer.inputs[operand].shape != layer.shape)
    return false;
  // Probe, for each dim, the candidate that splits it most: a box function
  // that returns the tile itself for all of them is the identity.
  for (size_t d = 0; d < layer.shape.size(); ++d) {
    const ParallelConfig *probe = nullptr;
    for (const ParallelConfig &c : candidates[l])
      if (!probe || c.degrees[d] > probe->degrees[d])
        probe = &c;
    for (int64_t t = 0; t < probe->tasks(); ++t) {
      TileBox tile = tileOfTask(layer.shape, probe->degrees, t);
      if (layer.inputBox(operand, tile) != tile)
        return false;
    }
  }
  return true;
}

const std::vector<double> &CostTables::nodeTable(int l) {
  std::vector<double> &table = nodeCache[nodeKeys[l]];
  if (table.empty())
    for (const ParallelConfig &c : candidates[l]) {
      LayerCost cost = model.layerCost(graph.layers[l], c);
      table.push_back(cost.computeMs + cost.syncMs);
    }
  return table;
}

const std::vector<double> &CostTables::edgeTable(int e) {
  if (edgeKeys[e].empty())
    edgeKeys[e] = edgeKey(e);
  std::vector<double> &table = edgeCache[edgeKeys[e]];
  if (table.empty())
    table = computeEdgeTable(e);
  return table;
}

std::vector<double> CostTables::computeEdgeTable(int e) const {
  const LayerEdge &edge = edges[e];
  const Layer &producer = graph.layers[edge.producer];
  const Layer &consumer = graph.layers[edge.consumer];
  const auto &pcs = candidates[edge.producer];
  const auto &ccs = candidates[edge.consumer];
  std::vector<double> table(pcs.size() * ccs.size());
  // The consumer's boxes depend only on its configuration and the
  // producer's grid only on its own: compute each once per column and row.
  std::vector<ConsumerTiles> columns;
  for (const ParallelConfig &c : ccs)
    columns.push_back(consumerTiles(consumer, edge.operand, c));
  for (size_t p = 0; p < pcs.size(); ++p) {
    ProducerGrid row = producerGrid(producer.shape, pcs[p]);
    for (size_t c = 0; c < ccs.size(); ++c)
      table[p * ccs.size() + c] = model.transferCost(row, columns[c]).ms;
  }
  return table;
}

double CostTables::nodeCost(int l, int c) { return nodeTable(l)[c]; }

double CostTables::edgeCost(int e, int p, int c) {
  auto it = edgeKeys[e].empty() ? edgeCache.end() : edgeCache.find(edgeKeys[e]);
  if (it != edgeCache.end() && !it->second.empty())
    return it
        ->second[static_cast<size_t>(p) * candidates[edges[e].consumer].size() +
                 c];
  // No table yet (a baseline or imported strategy): one entry is cheaper.
  const LayerEdge &edge = edges[e];
  return model
      .transferCost(graph.layers[edge.producer], candidates[edge.producer][p],
                    graph.layers[edge.consumer], edge.operand,
                    candidates[edge.consumer][c])
      .ms;
}

SearchGraph CostTables::buildSearchGraph() {
  // Distinct tables are independent: fill them on every core, then
  // assemble the graph from the cache.
  parallelFor(edges.size(), [&](size_t e) {
    if (edgeKeys[e].empty())
      edgeKeys[e] = edgeKey(static_cast<int>(e));
  });
  std::vector<int> todo;
  std::set<std::string> seen;
  for (size_t e = 0; e < edges.size(); ++e)
    if (edgeCache[edgeKeys[e]].empty() && seen.insert(edgeKeys[e]).second)
      todo.push_back(static_cast<int>(e));
  std::vector<std::vector<double>> tables(todo.size());
  parallelFor(todo.size(),
              [&](size_t i) { tables[i] = computeEdgeTable(todo[i]); });
  for (size_t i = 0; i < todo.size(); ++i)
    edgeCache[edgeKeys[todo[i]]] = std::move(tables[i]);

  SearchGraph g;
  for (size_t l = 0; l < graph.layers.size(); ++l)
    g.addNode(nodeTable(l));
  for (size_t e = 0; e < edges.size(); ++e)
    g.addEdge(edges[e].producer, edges[e].consumer, edgeTable(e));
  return g;
}

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
  for (size_t e = 0; e < edges.size(); ++e)
    if (edgeKeys[e].empty())
      edgeKeys[e] = edgeKey(static_cast<int>(e));
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
      ProducerGrid row = producerGrid(graph.layers[edge.producer].shape, p);
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
        producerGrid(graph.layers[edge.producer].shape,
                     candidates[edge.producer][choice[edge.producer]]),
        consumerTiles(graph.layers[edge.consumer], edge.operand,
                      candidates[edge.consumer][choice[edge.consumer]]));
  }
  return bytes;
}

std::vector<std::pair<int, double>>
CostTables::runnersUp(const std::vector<int> &choice) {
  std::vector<std::pair<int, double>> out;
  for (size_t l = 0; l < graph.layers.size(); ++l) {
    // The layer's share of the iteration time in candidate c, with its
    // neighbours fixed.
    auto share = [&](int c) {
      double v = nodeCost(l, c);
      for (int e : edgesOf[l]) {
        const LayerEdge &edge = edges[e];
        v += edge.producer == static_cast<int>(l)
                 ? edgeCost(e, c, choice[edge.consumer])
                 : edgeCost(e, choice[edge.producer], c);
      }
      return v;
    };
    double current = share(choice[l]);
    int best = -1;
    double bestCost = std::numeric_limits<double>::infinity();
    for (int c = 0; c < static_cast<int>(candidates[l].size()); ++c) {
      if (c == choice[l])
        continue;
      double v = share(c);
      if (v < bestCost) {
        bestCost = v;
        best = c;
      }
    }
    out.push_back({best, best < 0 ? 0.0 : bestCost - current});
  }
  return out;
}

} // namespace hd
