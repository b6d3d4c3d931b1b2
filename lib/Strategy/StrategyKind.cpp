//===- StrategyKind.cpp - the strategies hd can apply ---------------------===//

#include "hd/Strategy/StrategyKind.h"

namespace hd {

namespace {

struct Named {
  StrategyKind kind;
  const char *name;
};

// Users may choose the first five; "imported" labels a report only.
constexpr Named kNames[] = {
    {StrategyKind::Layerwise, "layerwise"},
    {StrategyKind::Data, "data"},
    {StrategyKind::Model, "model"},
    {StrategyKind::OWT, "owt"},
    {StrategyKind::Exhaustive, "exhaustive"},
    {StrategyKind::Imported, "imported"},
};

} // namespace

const char *strategyName(StrategyKind kind) {
  for (const Named &n : kNames)
    if (n.kind == kind)
      return n.name;
  return "unknown";
}

std::optional<StrategyKind> parseStrategyKind(std::string_view name) {
  for (const Named &n : kNames)
    if (n.kind != StrategyKind::Imported && name == n.name)
      return n.kind;
  return std::nullopt;
}

const char *strategyChoices() {
  return "layerwise, data, model, owt or exhaustive";
}

} // namespace hd
