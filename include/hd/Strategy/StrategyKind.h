//===- StrategyKind.h - the strategies hd can apply -------------*- C++ -*-===//
//
// One enum and one name table: the pass option, the baselines, the report
// and the benchmarks spell strategies the same way.
//
//===----------------------------------------------------------------------===//

#ifndef HD_STRATEGY_STRATEGYKIND_H
#define HD_STRATEGY_STRATEGYKIND_H

#include <optional>
#include <string_view>

namespace hd {

enum class StrategyKind {
  Layerwise,  // the exact search over every layer's candidates
  Data,       // every layer split along n over all devices
  Model,      // every layer split along c over all devices
  OWT,        // data up to the first fully-connected layer, model after it
  Exhaustive, // brute force: the oracle for small graphs
  Imported,   // a strategy saved in a report (import=), not a user choice
};

/// "layerwise", "data", "model", "owt", "exhaustive" or "imported".
const char *strategyName(StrategyKind kind);

/// The kinds a user may ask for by name; nullopt for anything else
/// ("imported" included: that one comes from import=).
std::optional<StrategyKind> parseStrategyKind(std::string_view name);

/// "layerwise, data, model, owt or exhaustive", for error messages.
const char *strategyChoices();

/// The strategies that give every layer a fixed configuration.
inline bool isBaseline(StrategyKind kind) {
  return kind == StrategyKind::Data || kind == StrategyKind::Model ||
         kind == StrategyKind::OWT;
}

/// The strategies that search.
inline bool searches(StrategyKind kind) {
  return kind == StrategyKind::Layerwise || kind == StrategyKind::Exhaustive;
}

} // namespace hd

#endif // HD_STRATEGY_STRATEGYKIND_H
