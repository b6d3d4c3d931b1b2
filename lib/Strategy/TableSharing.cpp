//===- TableSharing.cpp - which layers and edges share one table ----------===//
//
// Networks repeat themselves (Inception's blocks, a ResNet's stages, every
// ReLU of one shape), so the tables key what each one depends on and
// compute each distinct key once: a node table by the layer's signature,
// inputs and candidates, an edge table by the producer's shape and
// candidates and by the boxes the consumer's tasks read.
//
//===----------------------------------------------------------------------===//

#include "hd/Strategy/CostTables.h"

#include "ParallelFor.h"

#include <sstream>

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

std::string CostTables::nodeKey(int l) const {
  const Layer &layer = graph.layers[l];
  // A layer fed only by graph inputs skips its backward-data pass, and
  // one whose producer has other readers adds its gradient into theirs:
  // neither shows in the signature; nor do the types it computes in and
  // receives.
  std::string inputs;
  for (const LayerInput &in : layer.inputs)
    inputs +=
        (in.producer < 0 ? "g" : "l" + std::to_string(in.producerReaders)) +
        precisionTypeName(in.type);
  std::string types = std::string(precisionTypeName(layer.numerics.compute)) +
                      precisionTypeName(layer.numerics.output) +
                      precisionTypeName(layer.gradientType);
  return layer.signature + "|" + types + "|" + inputs + "|" +
         candidatesKey(candidates[l]);
}

std::string CostTables::edgeKey(int e) const {
  // t_x depends only on the producer's shape, output type and
  // configuration and on the boxes the consumer's tasks read: edges that
  // agree on those share a table (Inception's parallel 1x1 convolutions of
  // one input, every relu or batch norm of one shape). A consumer that reads
  // exactly its own tile is keyed by shape alone; the others by a fingerprint
  // of every box of every candidate.
  const LayerEdge &edge = edges[e];
  const Layer &producer = graph.layers[edge.producer];
  std::string key = shapeKey(producer.shape) +
                    precisionTypeName(producer.numerics.output) + "|" +
                    candidatesKey(candidates[edge.producer]) + "|" +
                    candidatesKey(candidates[edge.consumer]) + "|";
  if (readsOwnTile(edge.consumer, edge.operand))
    return key + "own-tile";
  // Two independent 64-bit hashes, a word at a time.
  uint64_t h = 14695981039346656037ull, g = 1099511628211ull;
  auto rotate = [](uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  auto mix = [&](int64_t v) {
    h = rotate(h ^ uint64_t(v), 23) * 0x9e3779b97f4a7c15ull;
    g = rotate(g + uint64_t(v), 31) * 0xc2b2ae3d27d4eb4full;
  };
  const Layer &consumer = graph.layers[edge.consumer];
  for (const ParallelConfig &c : candidates[edge.consumer]) {
    mix(-1);
    forEachTile(consumer.shape, c.degrees,
                [&](int64_t, const int64_t *, const TileBox &tile) {
                  TileBox box = consumer.inputBox(edge.operand, tile);
                  for (unsigned d = 0; d < box.rank(); ++d) {
                    mix(box[d].lo);
                    mix(box[d].hi);
                  }
                });
  }
  return key + std::to_string(h) + ":" + std::to_string(g);
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

void CostTables::assignTables() {
  if (!tableOf.empty())
    return;
  parallelFor(edges.size(), [&](size_t e) {
    if (edgeKeys[e].empty())
      edgeKeys[e] = edgeKey(static_cast<int>(e));
  });
  std::map<std::string, int> ids;
  for (size_t e = 0; e < edges.size(); ++e) {
    auto [it, added] = ids.try_emplace(edgeKeys[e], int(tables.size()));
    if (added)
      tables.push_back({int(e),
                        candidates[edges[e].consumer].size(),
                        std::vector<std::vector<double>>(
                            candidates[edges[e].producer].size()),
                        {},
                        {}});
    tableOf.push_back(it->second);
  }
}

} // namespace hd
