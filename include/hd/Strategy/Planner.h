//===- Planner.h - choose every layer's configuration ----------*- C++ -*-===//
//
// The whole decision of --layerwise-parallelize, in plain C++: resolve the
// machine, the device count and the strategy; build each layer's candidates
// (pinned layers keep theirs); apply a baseline, a saved strategy or the
// search; and report the result with each layer's costs and runner-up from
// the same cost tables. The pass only adapts IR to a LayerGraph and writes
// the configurations back.
//
//===----------------------------------------------------------------------===//

#ifndef HD_STRATEGY_PLANNER_H
#define HD_STRATEGY_PLANNER_H

#include "hd/CostModel/CostModel.h"
#include "hd/Search/Search.h"
#include "hd/Strategy/CostTables.h"
#include "hd/Strategy/StrategyKind.h"
#include "hd/Strategy/StrategyReport.h"
#include "hd/Strategy/Target.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hd {

/// An error about one layer of the model (its index), or about the model as
/// a whole (layer -1). `onOperation` asks the IR adaptor to name the layer's
/// op in the message (emitOpError rather than emitError).
class PlanError : public llvm::ErrorInfo<PlanError> {
public:
  static char ID;
  PlanError(int layer, std::string message, bool onOperation = false)
      : layer(layer), message(std::move(message)), onOperation(onOperation) {}

  void log(llvm::raw_ostream &os) const override { os << message; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

  int layer;
  std::string message;
  bool onOperation;
};

/// One model's strategy on one target. Holds references to `graph`.
class Planner {
public:
  Planner(const LayerGraph &graph, Target target);
  ~Planner();

  /// Chooses every layer's configuration. `pinned[l]`, when set, is layer
  /// l's configuration under every strategy; `importPath`, when not empty,
  /// names a report whose strategy is applied instead of choosing.
  /// Errors are PlanErrors.
  llvm::Error plan(const std::vector<std::optional<ParallelConfig>> &pinned,
                   const std::string &importPath);
  /// Where a search that runs long reports its progress (SearchProgress);
  /// null (the default) keeps it quiet.
  void setProgressStream(llvm::raw_ostream *os) { progressStream = os; }

  const std::vector<ParallelConfig> &configs() const { return chosen; }
  int64_t devices() const { return target.devices; }

  /// The chosen strategy's totals and per-layer costs.
  const StrategyCost &cost();
  /// What each device may hold. The search (layerwise or exhaustive)
  /// returns the fastest strategy whose memory bound
  /// (CostTables::layerMemory, never below any device's peak) is within it.
  int64_t capacityBytes() const { return target.machine.capacityBytes(); }

  /// The report of the chosen strategy: totals, per-layer costs and each
  /// layer's runner-up.
  StrategyReport report();

private:
  llvm::Error
  applyImported(const std::string &importPath,
                const std::vector<std::optional<ParallelConfig>> &pinned);
  llvm::Error search();
  llvm::raw_ostream *progressStream = nullptr;
  /// Replaces a non-exact search's result with a baseline's strategy when
  /// that one costs less and fits.
  void keepBestBaseline(SearchResult &result) const;
  /// With gradient sums beside backward (Machine::syncOverlap): searches
  /// again with each sum weighted by the share the chosen strategy leaves
  /// exposed, and keeps whichever strategy, these or a baseline's, has the
  /// least predicted step and fits.
  void preferHiddenSync();
  /// Configurations as a choice of candidates; a layer whose configuration
  /// is not one of them (a pinned layer's baseline) takes its first.
  std::vector<int> choiceOf(const std::vector<ParallelConfig> &configs) const;
  std::vector<ParallelConfig> configsOf(const std::vector<int> &choice) const;
  /// The memory bound of a choice of candidates.
  double memoryBound(const std::vector<int> &choice) const;
  /// The error when no strategy fits: the least memory, and the layer that
  /// takes most of it.
  llvm::Error nothingFits(const std::vector<int> &smallest,
                          double smallestBytes, bool exact) const;

  const LayerGraph &graph;
  Target target;
  CostModel model;
  StrategyKind applied = StrategyKind::Layerwise;
  std::vector<std::vector<ParallelConfig>> candidates;
  std::unique_ptr<CostTables> tables;
  std::vector<ParallelConfig> chosen;
  std::optional<StrategyCost> chosenCost;
  std::optional<SearchStats> searchStats;
  double searchMs = 0;
};

} // namespace hd

#endif // HD_STRATEGY_PLANNER_H
