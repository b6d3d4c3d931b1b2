//===- LayerwiseParallelize.cpp - choose every layer's configuration ------===//
//
// Adapts the IR to the plain-C++ cost model and search (LayerGraphBuilder),
// picks a strategy, and writes it back as #hd.pconfig attributes.
//
//===----------------------------------------------------------------------===//

#include "LayerGraphBuilder.h"

#include "hd/CostModel/CostTables.h"
#include "hd/CostModel/StrategyReport.h"
#include "hd/Dialect/HD/IR/HDOps.h"
#include "hd/Dialect/HD/Transforms/Passes.h"
#include "hd/Search/Search.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>

namespace hd {
#define GEN_PASS_DEF_LAYERWISEPARALLELIZEPASS
#include "hd/Dialect/HD/Transforms/Passes.h.inc"
} // namespace hd

using namespace mlir;
using namespace hd;

namespace {

/// Brute force refuses graphs with more combinations than this.
constexpr int64_t kExhaustiveLimit = 10'000'000;

/// The largest degree that divides `devices` and fits in `size`.
int64_t largestDegree(int64_t devices, int64_t size) {
  for (int64_t d = std::min(devices, size); d > 1; --d)
    if (devices % d == 0)
      return d;
  return 1;
}

/// Writes `text` to `path`; an error leaves no partial file behind.
LogicalResult writeFile(Operation *anchor, StringRef path, StringRef what,
                        StringRef text) {
  std::string error;
  auto file = openOutputFile(path, &error);
  if (!file)
    return anchor->emitError() << "cannot write the " << what << " '" << path
                               << "': " << error;
  file->os() << text;
  file->keep();
  return success();
}

struct LayerwiseParallelizePass
    : public hd::impl::LayerwiseParallelizePassBase<LayerwiseParallelizePass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// The configuration each baseline gives `layer` (index `l`).
  ParallelConfig baseline(StringRef kind, const Layer &layer,
                          bool afterFirstLinear) const;
  FailureOr<std::vector<ParallelConfig>>
  importStrategy(const ModuleLayers &layers);

  int64_t numDevices = 1;
};

ParallelConfig LayerwiseParallelizePass::baseline(StringRef kind,
                                                  const Layer &layer,
                                                  bool afterFirstLinear) const {
  ParallelConfig c{std::vector<int64_t>(layer.shape.size(), 1)};
  // OWT: data parallelism up to the first fully-connected layer, model
  // parallelism from there on.
  bool model = kind == "model" || (kind == "owt" && afterFirstLinear);
  if (model) {
    c.degrees[1] = largestDegree(numDevices, layer.shape[1]);
    while (layer.channelGroups > 1 && layer.channelGroups % c.degrees[1] != 0)
      c.degrees[1] = largestDegree(numDevices, c.degrees[1] - 1);
  } else
    c.degrees[0] = largestDegree(numDevices, layer.shape[0]);
  return c;
}

FailureOr<std::vector<ParallelConfig>>
LayerwiseParallelizePass::importStrategy(const ModuleLayers &layers) {
  ModuleOp module = getOperation();
  llvm::Expected<ImportedStrategy> imported = readStrategy(importPath);
  if (!imported) {
    module.emitError() << llvm::toString(imported.takeError());
    return failure();
  }
  if (imported->modelHash != layers.modelHash) {
    module.emitError() << "strategy '" << importPath << "' was made for model '"
                       << imported->model << "' (hash " << imported->modelHash
                       << "); this module is '" << layers.modelName
                       << "' (hash " << layers.modelHash
                       << "): re-run the search for this model";
    return failure();
  }
  if (imported->devices != numDevices) {
    module.emitError() << "strategy '" << importPath << "' is for "
                       << imported->devices << " devices, not " << numDevices;
    return failure();
  }
  // Layers are matched by name, so names must identify them.
  llvm::StringMap<std::vector<int64_t>> byName;
  for (const auto &[name, degrees] : imported->layers)
    byName[name] = degrees;
  llvm::StringMap<size_t> seen;
  for (size_t l = 0; l < layers.ops.size(); ++l) {
    auto [it, fresh] = seen.try_emplace(layers.graph.layers[l].name, l);
    if (!fresh) {
      layers.ops[l]->emitError()
          << "layer name '" << it->first() << "' is not unique; strategies "
          << "match layers by name (give each layer a loc(\"name\"))";
      return failure();
    }
  }
  std::vector<ParallelConfig> strategy;
  for (size_t l = 0; l < layers.ops.size(); ++l) {
    const Layer &layer = layers.graph.layers[l];
    auto it = byName.find(layer.name);
    if (it == byName.end()) {
      layers.ops[l]->emitError()
          << "layer '" << layer.name << "' has no configuration in '"
          << importPath << "'";
      return failure();
    }
    if (it->second.size() != layer.shape.size()) {
      layers.ops[l]->emitError()
          << "the configuration of '" << layer.name << "' in '" << importPath
          << "' has " << it->second.size() << " degrees; this layer has "
          << layer.shape.size() << " dimensions";
      return failure();
    }
    strategy.push_back({it->second});
  }
  return strategy;
}

void LayerwiseParallelizePass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *context = &getContext();
  auto fail = [&](const Twine &msg) {
    module.emitError(msg);
    signalPassFailure();
  };

  static const char *const strategies[] = {"layerwise", "data", "model",
                                           "owt", "exhaustive"};
  if (!llvm::is_contained(strategies, StringRef(strategy)))
    return fail("unknown strategy '" + strategy +
                "'; use layerwise, data, model, owt or exhaustive");

  llvm::Expected<Machine> machineOr = loadMachine(machine);
  if (!machineOr)
    return fail(llvm::toString(machineOr.takeError()));
  Machine target = *machineOr;
  int64_t requested = devices;
  numDevices = requested == -1 ? target.numDevices() : requested;
  if (numDevices < 1)
    return fail(llvm::formatv("devices={0}: the device count must be at "
                              "least 1",
                              numDevices));
  if (numDevices > target.numDevices())
    return fail(llvm::formatv("devices={0} exceeds the {1} devices of "
                              "machine '{2}' ({3} nodes x {4})",
                              numDevices, target.numDevices(), target.name,
                              target.nodes, target.devicesPerNode));

  ProfileDB profileDB;
  std::string profilePath = profile.empty() ? target.profile : profile;
  if (!profilePath.empty()) {
    llvm::Expected<ProfileDB> db = ProfileDB::load(profilePath);
    if (!db)
      return fail(llvm::toString(db.takeError()));
    profileDB = std::move(*db);
  }

  FailureOr<ModuleLayers> built = buildLayerGraph(module, "--layerwise-parallelize");
  if (failed(built))
    return signalPassFailure();
  ModuleLayers &layers = *built;
  if (layers.ops.empty())
    return;
  const LayerGraph &graph = layers.graph;
  size_t n = graph.layers.size();

  // Pinned layers keep their configuration under every strategy.
  std::vector<std::optional<ParallelConfig>> pinned(n);
  for (size_t l = 0; l < n; ++l) {
    PConfigAttr attr = layers.ops[l].getParallelConfig();
    if (!attr)
      continue;
    pinned[l] = toParallelConfig(attr, graph.layers[l].shape.size());
    if (pinned[l]->tasks() > numDevices) {
      layers.ops[l]->emitError()
          << "pinned configuration " << attr << " has " << pinned[l]->tasks()
          << " tasks but only " << numDevices << " devices are available";
      return signalPassFailure();
    }
  }

  CostModel model(target, std::move(profileDB));
  auto start = std::chrono::steady_clock::now();
  std::vector<ParallelConfig> chosen(n);
  std::optional<SearchStats> searchStats;
  std::vector<std::vector<ParallelConfig>> candidates(n);
  bool afterFirstLinear = false;
  for (size_t l = 0; l < n; ++l) {
    const Layer &layer = graph.layers[l];
    afterFirstLinear |= layer.kind == LayerKind::Linear;
    if (pinned[l]) {
      candidates[l] = {*pinned[l]};
      continue;
    }
    candidates[l] = enumerateConfigs(layer.shape, numDevices);
    llvm::erase_if(candidates[l], [&](const ParallelConfig &c) {
      return layer.channelGroups > 1 &&
             layer.channelGroups % c.degrees[1] != 0;
    });
    // The baselines are candidates too, so the search can never lose to
    // them.
    for (StringRef kind : {"data", "model", "owt"}) {
      ParallelConfig b = baseline(kind, layer, afterFirstLinear);
      if (!llvm::is_contained(candidates[l], b))
        candidates[l].push_back(b);
    }
  }

  if (!importPath.empty()) {
    FailureOr<std::vector<ParallelConfig>> imported = importStrategy(layers);
    if (failed(imported))
      return signalPassFailure();
    chosen = std::move(*imported);
    for (size_t l = 0; l < n; ++l) {
      if (pinned[l] && *pinned[l] != chosen[l]) {
        layers.ops[l]->emitOpError()
            << "is pinned to " << pinned[l]->str() << " but the imported "
            << "strategy says " << chosen[l].str()
            << "; remove one of the two";
        return signalPassFailure();
      }
      if (chosen[l].tasks() > numDevices) {
        layers.ops[l]->emitError()
            << "the imported configuration " << chosen[l].str() << " has "
            << chosen[l].tasks() << " tasks but only " << numDevices
            << " devices are available";
        return signalPassFailure();
      }
      if (!llvm::is_contained(candidates[l], chosen[l]))
        candidates[l].push_back(chosen[l]);
    }
  } else if (strategy != "layerwise" && strategy != "exhaustive") {
    afterFirstLinear = false;
    for (size_t l = 0; l < n; ++l) {
      afterFirstLinear |= graph.layers[l].kind == LayerKind::Linear;
      chosen[l] = pinned[l] ? *pinned[l]
                            : baseline(strategy, graph.layers[l],
                                       afterFirstLinear);
    }
  }

  // The search's tables; the report reuses them for the runners-up.
  CostTables tables(model, graph, candidates);
  if (importPath.empty() && strategy == "exhaustive") {
    SearchGraph searchGraph = tables.buildSearchGraph();
    int64_t count = combinationCount(searchGraph);
    std::optional<SearchResult> result =
        searchBruteForce(searchGraph, kExhaustiveLimit);
    if (!result)
      return fail(llvm::formatv(
          "strategy=exhaustive would try {0} combinations ({1} layers), "
          "above the limit of {2}; use strategy=layerwise, which is exact "
          "and fast",
          count == INT64_MAX ? std::string("more than 9.2e18")
                             : std::to_string(count),
          n, kExhaustiveLimit));
    for (size_t l = 0; l < n; ++l)
      chosen[l] = candidates[l][result->choice[l]];
    searchStats = result->stats;
  } else if (importPath.empty() && strategy == "layerwise") {
    SearchResult result = searchOptimal(tables.buildSearchGraph());
    for (size_t l = 0; l < n; ++l)
      chosen[l] = candidates[l][result.choice[l]];
    searchStats = result.stats;
  }
  double searchMs = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();

  // Write the strategy into the IR; the verifier checks every degree
  // against its dimension and hd.devices.
  module->setAttr(HDDialect::getDevicesAttrName(),
                  IntegerAttr::get(IntegerType::get(context, 64), numDevices));
  for (size_t l = 0; l < n; ++l)
    layers.ops[l]->setAttr("parallel", toAttr(context, chosen[l]));
  for (size_t l = 0; l < n; ++l)
    if (failed(verifyLayerConfig(layers.ops[l])))
      return signalPassFailure();

  if (report.empty() && !print && dot.empty())
    return;

  // The report: totals, per-layer costs, and each layer's runner-up.
  StrategyReport r;
  r.model = layers.modelName;
  r.modelHash = layers.modelHash;
  r.machine = target.name;
  r.strategy = importPath.empty() ? std::string(strategy) : "imported";
  r.devices = numDevices;
  r.batch = layers.batch;
  r.cost = evaluateStrategy(model, graph, chosen);
  r.searchMs = searchMs;
  r.search = searchStats;
  std::vector<int> choice(n);
  for (size_t l = 0; l < n; ++l)
    choice[l] = llvm::find(candidates[l], chosen[l]) - candidates[l].begin();
  std::vector<std::pair<int, double>> runnersUp = tables.runnersUp(choice);
  for (size_t l = 0; l < n; ++l) {
    LayerEntry entry{graph.layers[l].name, graph.layers[l].op, chosen[l],
                     r.cost.layers[l], std::nullopt, 0};
    if (runnersUp[l].first >= 0) {
      entry.runnerUp = candidates[l][runnersUp[l].first];
      entry.runnerUpExtraMs = runnersUp[l].second;
    }
    r.layers.push_back(std::move(entry));
  }
  r.edges = tables.getEdges();

  if (!report.empty() &&
      failed(writeFile(module, report, "report", reportToJSON(r))))
    return signalPassFailure();
  if (!dot.empty() &&
      failed(writeFile(module, dot, "DOT file", reportToDOT(r))))
    return signalPassFailure();
  if (print)
    llvm::errs() << reportTable(r);
}

} // namespace
