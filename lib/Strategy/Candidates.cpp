//===- Candidates.cpp - the configurations each layer may take ------------===//

#include "hd/Strategy/Candidates.h"

#include <algorithm>

namespace hd {

namespace {

/// The largest degree that divides `devices` and fits in `size`.
int64_t largestDegree(int64_t devices, int64_t size) {
  for (int64_t d = std::min(devices, size); d > 1; --d)
    if (devices % d == 0)
      return d;
  return 1;
}

/// Calls `body(layer, afterFirstLinear)` for every layer in program order.
template <typename Body> void forEachLayer(const LayerGraph &graph, Body body) {
  bool afterFirstLinear = false;
  for (const Layer &layer : graph.layers) {
    afterFirstLinear |= layer.kind == CostKind::Linear;
    body(layer, afterFirstLinear);
  }
}

} // namespace

ParallelConfig baselineConfig(StrategyKind kind, const Layer &layer,
                              int64_t devices, bool afterFirstLinear) {
  ParallelConfig c{std::vector<int64_t>(layer.shape.size(), 1)};
  bool model = kind == StrategyKind::Model ||
               (kind == StrategyKind::OWT && afterFirstLinear);
  unsigned dim = model ? 1 : 0;
  if (!layer.split.canSplit(dim))
    return c;
  c.degrees[dim] = largestDegree(devices, layer.shape[dim]);
  while (!layer.split.keepsGroupsWhole(c))
    c.degrees[dim] = largestDegree(devices, c.degrees[dim] - 1);
  return c;
}

std::vector<ParallelConfig>
baselineStrategy(StrategyKind kind, const LayerGraph &graph, int64_t devices) {
  std::vector<ParallelConfig> strategy;
  forEachLayer(graph, [&](const Layer &layer, bool afterFirstLinear) {
    strategy.push_back(baselineConfig(kind, layer, devices, afterFirstLinear));
  });
  return strategy;
}

std::vector<std::vector<ParallelConfig>>
searchCandidates(const LayerGraph &graph, int64_t devices) {
  std::vector<std::vector<ParallelConfig>> candidates;
  forEachLayer(graph, [&](const Layer &layer, bool afterFirstLinear) {
    std::vector<ParallelConfig> &mine = candidates.emplace_back(
        candidateConfigs(layer.shape, layer.split, devices));
    for (StrategyKind kind :
         {StrategyKind::Data, StrategyKind::Model, StrategyKind::OWT}) {
      ParallelConfig b = baselineConfig(kind, layer, devices, afterFirstLinear);
      if (std::find(mine.begin(), mine.end(), b) == mine.end())
        mine.push_back(b);
    }
  });
  return candidates;
}

} // namespace hd
