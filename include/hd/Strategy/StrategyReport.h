//===- StrategyReport.h - strategy reports: JSON, table, DOT ---*- C++ -*-===//
//
// The report of docs/design.md. The same JSON file re-imports as a strategy
// (import=), checked against the model's hash. Each layer's runner-up comes
// from the search's own tables (RunnersUp.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef HD_STRATEGY_STRATEGYREPORT_H
#define HD_STRATEGY_STRATEGYREPORT_H

#include "hd/CostModel/CostModel.h"
#include "hd/Search/Search.h"
#include "hd/Strategy/CostTables.h"
#include "hd/Strategy/StrategyKind.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace hd {

struct LayerEntry {
  std::string name, op;
  ParallelConfig config;
  LayerNumerics numerics;
  LayerReport cost;
  /// The best other configuration with the rest of the strategy fixed, and
  /// how much slower the iteration would be with it.
  std::optional<ParallelConfig> runnerUp;
  double runnerUpExtraMs = 0;
};

struct StrategyReport {
  std::string model, modelHash, machine;
  StrategyKind strategy = StrategyKind::Layerwise;
  int64_t devices = 1;
  int64_t batch = 1;
  /// The program's low precision and the type gradients are summed in.
  Precision precision = Precision::F32;
  Precision gradientSync = Precision::F32;
  StrategyCost cost;
  /// What each device may hold (Machine::capacityBytes).
  int64_t capacityBytes = 0;
  double searchMs = 0;
  /// Set when a search ran (layerwise, exhaustive).
  std::optional<SearchStats> search;
  std::vector<LayerEntry> layers;
  std::vector<LayerEdge> edges;

  /// Whether every device's peak fits its capacity.
  bool fits() const { return cost.peakMemBytes <= capacityBytes; }

  double imagesPerSecond() const {
    return cost.totalMs() > 0 ? batch / (cost.totalMs() * 1e-3) : 0;
  }
};

/// For each layer: the best other candidate with every other layer fixed
/// as in `choice` (indices into the candidates of `tables`), and how much
/// slower the iteration would be; -1 when the layer has a single candidate.
std::vector<std::pair<int, double>> runnersUp(CostTables &tables,
                                              const std::vector<int> &choice);

std::string reportToJSON(const StrategyReport &report);
/// The human table: one row per layer, then the totals.
std::string reportTable(const StrategyReport &report);
/// Graphviz: one box per layer labelled with its configuration and
/// coloured by its split kind, and the layer graph's edges.
std::string reportToDOT(const StrategyReport &report);

/// Where report() goes: any of a JSON file, a DOT file and a table on
/// stderr. A file that cannot be written is an error, and leaves nothing
/// behind.
struct ReportOutputs {
  std::string json, dot;
  bool print = false;

  bool any() const { return !json.empty() || !dot.empty() || print; }
};

llvm::Error writeReport(const StrategyReport &report,
                        const ReportOutputs &outputs);

/// A strategy read back from a report.
struct ImportedStrategy {
  std::string model, modelHash;
  int64_t devices = 0;
  /// Per layer, in file order: name and degrees (n, c[, h, w]).
  std::vector<std::pair<std::string, std::vector<int64_t>>> layers;
};

llvm::Expected<ImportedStrategy> readStrategy(llvm::StringRef path);
/// The same from a report's text; `origin` names it in errors.
llvm::Expected<ImportedStrategy> parseStrategy(llvm::StringRef text,
                                               llvm::StringRef origin);

} // namespace hd

#endif // HD_STRATEGY_STRATEGYREPORT_H
