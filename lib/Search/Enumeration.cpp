//===- Enumeration.cpp - trying every configuration -----------------------===//
//
// Where the configurations left to choose are few, trying each is exact and
// fastest: the remaining nodes of an elimination (up to
// SearchOptions::enumerationLimit of them) and, for tests and
// strategy=exhaustive, a whole graph by brute force.
//
//===----------------------------------------------------------------------===//

#include "Eliminator.h"

namespace hd {

namespace elimination {

bool advance(std::vector<int> &assign, const std::vector<int64_t> &dims) {
  for (size_t i = assign.size(); i-- > 0;) {
    if (++assign[i] < dims[i])
      return true;
    assign[i] = 0;
  }
  return false;
}

double factorValue(const Factor &f, const std::vector<int> &choice) {
  int64_t index = 0;
  for (size_t i = 0; i < f.vars.size(); ++i)
    index = index * f.dims[i] + choice[f.vars[i]];
  return f.table[index];
}

void Eliminator::enumerateRemaining(const std::vector<int> &remaining,
                                    const std::vector<Factor> &factors,
                                    int64_t space) {
  stats.enumerated = space;
  std::vector<int> assign(remaining.size(), 0), all(graph.numNodes(), 0);
  std::vector<int64_t> dims;
  for (int n : remaining)
    dims.push_back(configs(n));
  double best = kInf;
  do {
    for (size_t s = 0; s < remaining.size(); ++s)
      all[remaining[s]] = assign[s];
    double v = 0;
    for (const Factor &f : factors)
      v += factorValue(f, all);
    if (v < best) {
      best = v;
      for (int n : remaining)
        remainingChoice[n] = all[n];
    }
  } while (advance(assign, dims));
}

} // namespace elimination

int64_t combinationCount(const SearchGraph &graph) {
  int64_t n = 1;
  for (int i = 0; i < graph.numNodes(); ++i)
    n = elimination::saturatingMul(n, graph.numConfigs(i));
  return n;
}

std::optional<SearchResult> searchBruteForce(const SearchGraph &graph,
                                             int64_t limit) {
  int64_t count = combinationCount(graph);
  if (count > limit)
    return std::nullopt;
  SearchResult best;
  best.cost = elimination::kInf;
  std::vector<int> choice(graph.numNodes(), 0);
  std::vector<int64_t> dims;
  for (int n = 0; n < graph.numNodes(); ++n)
    dims.push_back(graph.numConfigs(n));
  do {
    double v = evaluate(graph, choice);
    if (v < best.cost) {
      best.cost = v;
      best.choice = choice;
    }
  } while (elimination::advance(choice, dims));
  best.stats.enumerated = count;
  best.stats.lowerBound = best.cost;
  return best;
}

} // namespace hd
