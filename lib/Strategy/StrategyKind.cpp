//===- StrategyKind.cpp - the strategies hd can apply ---------------------===//

#include "hd/Strategy/StrategyKind.h"

#include <iterator>
#include <string>

namespace hd {

namespace {

struct Named {
  StrategyKind kind;
  const char *name;
};

// Users may choose all but the last; "imported" labels a report only.
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
  // "a, b, c or d" of the kinds users may choose.
  static const std::string choices = [] {
    std::string text;
    size_t count = std::size(kNames) - 1; // without "imported"
    for (size_t i = 0; i < count; ++i)
      text += std::string(i == 0           ? ""
                          : i + 1 == count ? " or "
                                           : ", ") +
              kNames[i].name;
    return text;
  }();
  return choices.c_str();
}

} // namespace hd
