//===- Search.cpp - exact search by elimination ---------------------------===//
//
// Runs the stages of Search.h in order over one Eliminator (Eliminator.h):
// the degree <= 2 reductions, then the nodes they leave, by enumeration or
// by variable elimination, then undo, which replays the eliminations
// backwards to pick every configuration; and with min-marginals asked for,
// the backward pass over the reductions' tables.
//
//===----------------------------------------------------------------------===//

#include "hd/Search/Search.h"

#include "Eliminator.h"
#include "MinMarginals.h"

#include <algorithm>

namespace hd {

namespace elimination {

void undo(const std::vector<Elimination> &eliminations,
          std::vector<int> &choice) {
  for (auto it = eliminations.rbegin(); it != eliminations.rend(); ++it) {
    int64_t index = 0;
    for (size_t s = 0; s < it->scope.size(); ++s)
      index = index * it->dims[s] + choice[it->scope[s]];
    choice[it->node] = it->argmin[index];
  }
}

void Eliminator::solveRemaining(std::vector<int> &choice) {
  std::vector<int> remaining;
  for (int n = 0; n < graph.numNodes(); ++n)
    if (alive[n])
      remaining.push_back(n);
  stats.remainingNodes = static_cast<int>(remaining.size());
  if (remaining.empty())
    return;
  int64_t space = 1;
  for (int n : remaining)
    space = saturatingMul(space, configs(n));

  std::vector<Factor> factors;
  for (int n : remaining)
    factors.push_back({{n}, {configs(n)}, unary[n]});
  for (const auto &[key, table] : pairs)
    factors.push_back({{key.first, key.second},
                       {configs(key.first), configs(key.second)},
                       table});

  remainingChoice.assign(graph.numNodes(), 0);
  if (space <= options.enumerationLimit)
    enumerateRemaining(remaining, factors, space);
  else
    variableElimination(std::move(factors), remaining);
  for (int n : remaining)
    choice[n] = remainingChoice[n];
}

SearchResult Eliminator::run() {
  for (const SearchEdge &e : graph.edges)
    addPair(e.from, e.to, e.cost);
  reduceDegreeTwo();
  SearchResult result;
  result.choice.assign(graph.numNodes(), 0);
  solveRemaining(result.choice);
  undo(eliminations, result.choice);
  result.cost = evaluate(graph, result.choice);
  result.stats = stats;
  if (result.stats.exact)
    result.stats.lowerBound = result.cost;
  if (options.minMarginals && stats.remainingNodes == 1) {
    int last = int(std::find(alive.begin(), alive.end(), true) - alive.begin());
    std::vector<int> counts;
    for (int n = 0; n < graph.numNodes(); ++n)
      counts.push_back(configs(n));
    result.minMarginals =
        minMarginals(steps, counts, last, unary[last], result.cost);
  }
  return result;
}

} // namespace elimination

SearchResult searchOptimal(const SearchGraph &graph,
                           const SearchOptions &options) {
  if (graph.numNodes() == 0)
    return {};
  return elimination::Eliminator(graph, options).run();
}

} // namespace hd
