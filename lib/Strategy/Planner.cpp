//===- Planner.cpp - choose every layer's configuration -------------------===//
//
// One model's decision on a resolved target (Target.h): the candidates,
// then a baseline, a saved strategy or the search (grouped, then within
// the memory capacity, then weighed for syncs hidden behind backward), and
// the report of the choice with each layer's runner-up. Writing the report
// is the report's own (StrategyReport.cpp).
//
//===----------------------------------------------------------------------===//

#include "hd/Strategy/Planner.h"

#include "hd/Search/ConstrainedSearch.h"
#include "hd/Search/GroupedSearch.h"
#include "hd/Strategy/Candidates.h"
#include "hd/Strategy/SearchProgress.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <numeric>

using namespace llvm;

namespace hd {

char PlanError::ID;

namespace {

/// Brute force refuses graphs with more combinations than this.
constexpr int64_t kExhaustiveLimit = 10'000'000;

Error modelError(const Twine &message) {
  return make_error<PlanError>(-1, message.str());
}

Error layerError(int layer, const Twine &message) {
  return make_error<PlanError>(layer, message.str());
}

} // namespace

Planner::Planner(const LayerGraph &graph, Target target)
    : graph(graph), target(std::move(target)),
      model(this->target.machine, this->target.profile) {}

Planner::~Planner() = default;

Error Planner::plan(const std::vector<std::optional<ParallelConfig>> &pinned,
                    const std::string &importPath) {
  chosenCost.reset();
  auto start = std::chrono::steady_clock::now();
  size_t n = graph.layers.size();
  candidates = searchCandidates(graph, target.devices);
  for (size_t l = 0; l < n; ++l)
    if (pinned[l])
      candidates[l] = {*pinned[l]};

  applied = importPath.empty() ? target.strategy : StrategyKind::Imported;
  if (applied == StrategyKind::Imported) {
    if (Error e = applyImported(importPath, pinned))
      return e;
  } else if (isBaseline(applied)) {
    chosen = baselineStrategy(applied, graph, target.devices);
    for (size_t l = 0; l < n; ++l)
      if (pinned[l])
        chosen[l] = *pinned[l];
  }
  // The search's tables; the report reuses them for the runners-up.
  tables = std::make_unique<CostTables>(model, graph, candidates);
  if (searches(applied))
    if (Error e = search())
      return e;
  searchMs = std::chrono::duration<double, std::milli>(
                 std::chrono::steady_clock::now() - start)
                 .count();
  return Error::success();
}

double Planner::memoryBound(const std::vector<int> &choice) const {
  std::vector<double> bytes = tables->layerMemory(choice);
  return std::accumulate(bytes.begin(), bytes.end(), 0.0);
}

void Planner::keepBestBaseline(SearchResult &result) const {
  // Every baseline's configuration is a candidate (pinned layers keep
  // theirs), so an exact search never loses to one that fits; the
  // approximation that a graph too wide to eliminate falls back to can.
  for (StrategyKind kind :
       {StrategyKind::Data, StrategyKind::Model, StrategyKind::OWT}) {
    std::vector<int> choice =
        choiceOf(baselineStrategy(kind, graph, target.devices));
    double cost = tables->evaluate(choice);
    if (cost < result.cost && memoryBound(choice) <= capacityBytes()) {
      result.choice = std::move(choice);
      result.cost = cost;
    }
  }
}

std::vector<int>
Planner::choiceOf(const std::vector<ParallelConfig> &configs) const {
  std::vector<int> choice;
  for (size_t l = 0; l < graph.layers.size(); ++l) {
    auto it = find(candidates[l], configs[l]);
    // A pinned layer has one candidate, its pin.
    choice.push_back(it == candidates[l].end() ? 0
                                               : it - candidates[l].begin());
  }
  return choice;
}

std::vector<ParallelConfig>
Planner::configsOf(const std::vector<int> &choice) const {
  std::vector<ParallelConfig> configs;
  for (size_t l = 0; l < graph.layers.size(); ++l)
    configs.push_back(candidates[l][choice[l]]);
  return configs;
}

void Planner::preferHiddenSync() {
  double capacity = double(capacityBytes());
  StrategyCost last = evaluateStrategy(model, graph, chosen); // the search's
  double best = last.totalMs();
  // Keeps `configs` where it fits and predicts less; returns its cost.
  auto consider = [&](std::vector<ParallelConfig> configs, bool fits) {
    StrategyCost cost = evaluateStrategy(model, graph, configs);
    if (fits && cost.totalMs() < best) {
      best = cost.totalMs();
      chosen = std::move(configs);
    }
    return cost;
  };
  for (StrategyKind kind :
       {StrategyKind::Data, StrategyKind::Model, StrategyKind::OWT}) {
    std::vector<int> choice =
        choiceOf(baselineStrategy(kind, graph, target.devices));
    consider(configsOf(choice), memoryBound(choice) <= capacity);
  }
  // The weight follows the strategy the last search found; a few rounds
  // settle it.
  double weight = 1;
  for (int round = 0; round < 3; ++round) {
    if (last.syncMs <= 0 ||
        std::abs(last.exposedSyncMs / last.syncMs - weight) < 0.01)
      break;
    weight = last.exposedSyncMs / last.syncMs;
    CostTables weighted(model, graph, candidates, weight);
    std::vector<int> choice = searchByGroups(weighted, {}).choice;
    last = consider(configsOf(choice), memoryBound(choice) <= capacity);
  }
}

/// Bytes as people read them: 7.23 GiB, 812.4 MiB, 96.0 KiB.
static std::string bytesStr(double bytes) {
  if (bytes >= 1073741824.0)
    return formatv("{0:F2} GiB", bytes / 1073741824.0);
  if (bytes >= 1048576.0)
    return formatv("{0:F1} MiB", bytes / 1048576.0);
  return formatv("{0:F1} KiB", bytes / 1024.0);
}

Error Planner::nothingFits(const std::vector<int> &smallest,
                           double smallestBytes, bool exact) const {
  std::vector<double> bytes = tables->layerMemory(smallest);
  size_t most = std::max_element(bytes.begin(), bytes.end()) - bytes.begin();
  const Layer &layer = graph.layers[most];
  return modelError(formatv(
      "no strategy on {0} devices of '{1}' fits the {2} each may hold "
      "(mem_gib less mem_reserve_gib): the {3} any strategy needs is {4} "
      "per device, of which layer '{5}' ({6} as {7}) takes {8}; use more "
      "devices, fewer images per device, or a machine with more memory",
      target.devices, target.machine.name, bytesStr(capacityBytes()),
      exact ? "least" : "least found that", bytesStr(smallestBytes),
      layer.name, layer.op, candidates[most][smallest[most]].str(),
      bytesStr(bytes[most])));
}

Error Planner::search() {
  double capacity = double(capacityBytes());
  SearchResult result;
  SearchProgress progress(progressStream);
  tables->setProgress(
      [&](int64_t done, int64_t total) { progress.entries(done, total); });
  llvm::scope_exit quiet([&] { tables->setProgress(nullptr); });
  SearchOptions grouped;
  grouped.onRound = [&](int round, int64_t exact, int64_t all) {
    progress.round(round, exact, all);
  };
  if (applied == StrategyKind::Exhaustive) {
    SearchGraph searchGraph = tables->buildSearchGraph();
    int64_t count = combinationCount(searchGraph);
    if (count > kExhaustiveLimit)
      return modelError(formatv(
          "strategy=exhaustive would try {0} combinations ({1} layers), "
          "above the limit of {2}; use strategy=layerwise, which is exact "
          "and fast",
          count == INT64_MAX ? std::string("more than 9.2e18")
                             : std::to_string(count),
          graph.layers.size(), kExhaustiveLimit));
    std::optional<ConstrainedResult> found = bruteForceWithinCapacity(
        searchGraph, tables->buildMemoryGraph(), capacity, kExhaustiveLimit);
    if (!found->feasible)
      return nothingFits(found->smallestChoice, found->smallestMemory, true);
    result = std::move(found->result);
  } else {
    auto start = std::chrono::steady_clock::now();
    // Exact without filling the tables of configurations that leave
    // devices idle, unless a bound cannot rule them out.
    result = searchByGroups(*tables, grouped);
    if (!result.stats.exact)
      keepBestBaseline(result);
    // Usually the fastest strategy fits; otherwise the fastest one that
    // does is searched for. Branching to prove it optimal may take twice
    // as long as the search did (at least a second), and otherwise ends
    // with the gap reported: on large graphs it is a fraction of a percent.
    if (memoryBound(result.choice) > capacity) {
      ConstrainedOptions options;
      options.branchSeconds = std::max(
          1.0, 2 * std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count());
      ConstrainedResult found =
          searchWithinCapacity(tables->buildSearchGraph(),
                               tables->buildMemoryGraph(), capacity, options);
      if (!found.feasible)
        return nothingFits(found.smallestChoice, found.smallestMemory,
                           found.minMemoryExact);
      // The elimination's counts are the unconstrained search's.
      SearchStats stats = result.stats;
      result = std::move(found.result);
      stats.exact = result.stats.exact;
      stats.lowerBound = result.stats.lowerBound;
      stats.capacityBinds = true;
      stats.subproblems = result.stats.subproblems;
      stats.exactConfigs = stats.allConfigs; // it needed every table
      stats.droppedConfigs = 0;
      result.stats = stats;
      if (!result.stats.exact)
        keepBestBaseline(result);
    }
  }
  chosen = configsOf(result.choice);
  searchStats = result.stats;
  if (target.machine.syncOverlap)
    preferHiddenSync();
  return Error::success();
}

Error Planner::applyImported(
    const std::string &path,
    const std::vector<std::optional<ParallelConfig>> &pinned) {
  Expected<ImportedStrategy> imported = readStrategy(path);
  if (!imported)
    return modelError(toString(imported.takeError()));
  if (imported->modelHash != graph.modelHash)
    return modelError("strategy '" + path + "' was made for model '" +
                      imported->model + "' (hash " + imported->modelHash +
                      "); this module is '" + graph.model + "' (hash " +
                      graph.modelHash + "): re-run the search for this model");
  if (imported->devices != target.devices)
    return modelError(formatv("strategy '{0}' is for {1} devices, not {2}",
                              path, imported->devices, target.devices));
  // Layers are matched by name, so names must identify them.
  StringMap<std::vector<int64_t>> byName;
  for (const auto &[name, degrees] : imported->layers)
    byName[name] = degrees;
  StringMap<size_t> seen;
  for (size_t l = 0; l < graph.layers.size(); ++l) {
    auto [it, fresh] = seen.try_emplace(graph.layers[l].name, l);
    if (!fresh)
      return layerError(l, "layer name '" + it->first() +
                               "' is not unique; strategies match layers by "
                               "name (give each layer a loc(\"name\"))");
  }
  chosen.clear();
  for (size_t l = 0; l < graph.layers.size(); ++l) {
    const Layer &layer = graph.layers[l];
    auto it = byName.find(layer.name);
    if (it == byName.end())
      return layerError(l, "layer '" + layer.name +
                               "' has no configuration in '" + path + "'");
    if (it->second.size() != layer.shape.size())
      return layerError(l, formatv("the configuration of '{0}' in '{1}' has "
                                   "{2} degrees; this layer has {3} "
                                   "dimensions",
                                   layer.name, path, it->second.size(),
                                   layer.shape.size()));
    chosen.push_back({it->second});
  }
  for (size_t l = 0; l < graph.layers.size(); ++l) {
    if (pinned[l] && *pinned[l] != chosen[l])
      return make_error<PlanError>(l,
                                   "is pinned to " + pinned[l]->str() +
                                       " but the imported strategy says " +
                                       chosen[l].str() +
                                       "; remove one of the two",
                                   /*onOperation=*/true);
    if (chosen[l].tasks() > target.devices)
      return layerError(l, formatv("the imported configuration {0} has {1} "
                                   "tasks but only {2} devices are available",
                                   chosen[l].str(), chosen[l].tasks(),
                                   target.devices));
    if (!is_contained(candidates[l], chosen[l]))
      candidates[l].push_back(chosen[l]);
  }
  return Error::success();
}

const StrategyCost &Planner::cost() {
  if (!chosenCost)
    chosenCost = evaluateStrategy(model, graph, chosen);
  return *chosenCost;
}

StrategyReport Planner::report() {
  StrategyReport r;
  r.model = graph.model;
  r.modelHash = graph.modelHash;
  r.machine = target.machine.name;
  r.strategy = applied;
  r.devices = target.devices;
  r.batch = graph.batch;
  r.precision = graph.precision;
  r.gradientSync = target.gradientSync;
  r.cost = cost();
  r.capacityBytes = capacityBytes();
  r.searchMs = searchMs;
  r.search = searchStats;
  size_t n = graph.layers.size();
  std::vector<int> choice(n);
  for (size_t l = 0; l < n; ++l)
    choice[l] = find(candidates[l], chosen[l]) - candidates[l].begin();
  std::vector<std::pair<int, double>> seconds = runnersUp(*tables, choice);
  for (size_t l = 0; l < n; ++l) {
    const Layer &layer = graph.layers[l];
    LayerEntry entry{layer.name,       layer.op,     chosen[l], layer.numerics,
                     r.cost.layers[l], std::nullopt, 0};
    if (seconds[l].first >= 0) {
      entry.runnerUp = candidates[l][seconds[l].first];
      entry.runnerUpExtraMs = seconds[l].second;
    }
    r.layers.push_back(std::move(entry));
  }
  r.edges = tables->getEdges();
  return r;
}

} // namespace hd
