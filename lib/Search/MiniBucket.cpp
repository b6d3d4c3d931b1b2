//===- MiniBucket.cpp - a bound and a choice for graphs too wide ----------===//
//
// Where exact variable elimination would build a factor above the limit,
// mini-bucket elimination (Dechter and Rish) gives a lower bound on the
// optimum from factors kept within a smaller limit, and the buckets give a
// choice that iterated conditional modes then improves: a heuristic
// strategy with a stated gap to optimal.
//
//===----------------------------------------------------------------------===//

#include "Eliminator.h"

#include <algorithm>

namespace hd::elimination {

void Eliminator::approximate(std::vector<Factor> factors,
                             const std::vector<int> &order,
                             std::vector<int> &choice) {
  // Mini-bucket elimination (Dechter and Rish): a node's factors are split
  // into groups whose new factor stays within the mini-bucket limit, and
  // each group minimizes over the node on its own. Each group may so pick
  // the node differently, which only lowers the result: the constants left
  // sum to a lower bound on the optimum.
  const std::vector<Factor> original = factors;
  std::vector<std::vector<Factor>> buckets(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    int x = order[i];
    std::vector<Factor> &touching = buckets[i];
    std::vector<Factor> others;
    for (Factor &f : factors)
      (std::find(f.vars.begin(), f.vars.end(), x) != f.vars.end() ? touching
                                                                  : others)
          .push_back(std::move(f));
    std::stable_sort(touching.begin(), touching.end(),
                     [](const Factor &a, const Factor &b) {
                       return a.vars.size() > b.vars.size();
                     });
    std::vector<std::vector<const Factor *>> groups;
    std::vector<std::set<int>> groupScopes;
    for (const Factor &f : touching) {
      // Into the group it shares most nodes with, among those it fits.
      size_t g = groups.size();
      int shared = -1;
      for (size_t h = 0; h < groups.size(); ++h) {
        std::set<int> scope = groupScopes[h];
        int common = 0;
        for (int v : f.vars)
          common += v != x && scope.count(v);
        scope.insert(f.vars.begin(), f.vars.end());
        scope.erase(x);
        int64_t size = 1;
        for (int v : scope)
          size = saturatingMul(size, configs(v));
        if (size <= options.miniBucketLimit && common > shared) {
          g = h;
          shared = common;
        }
      }
      if (g == groups.size()) {
        groups.emplace_back();
        groupScopes.emplace_back();
      }
      groups[g].push_back(&f);
      groupScopes[g].insert(f.vars.begin(), f.vars.end());
    }
    // Moment matching: each group's least sum for each configuration of x
    // moves to their mean, by a unary factor on x whose shifts add up to
    // 0. The groups' total is unchanged, so the bound stays a bound, and
    // the groups then agree better on x. (One group needs no shift.)
    std::vector<Factor> shifts(groups.size() > 1 ? groups.size() : 0);
    if (!shifts.empty()) {
      std::vector<std::vector<double>> least(groups.size());
      for (size_t g = 0; g < groups.size(); ++g)
        minimizeOut(groups[g], x, nullptr, &least[g]);
      std::vector<double> mean(configs(x), 0.0);
      for (const std::vector<double> &l : least)
        for (int c = 0; c < configs(x); ++c)
          mean[c] += l[c] / double(groups.size());
      for (size_t g = 0; g < groups.size(); ++g) {
        shifts[g] = {{x}, {configs(x)}, mean};
        for (int c = 0; c < configs(x); ++c)
          shifts[g].table[c] -= least[g][c];
        groups[g].push_back(&shifts[g]);
      }
    }
    for (const std::vector<const Factor *> &group : groups)
      others.push_back(minimizeOut(group, x, nullptr));
    factors = std::move(others);
  }
  double bound = reducedCost;
  for (const Factor &f : factors)
    bound += f.table[0];
  // Every factor at its own minimum is a bound too; keep the better.
  double simple = reducedCost;
  for (const Factor &f : original)
    simple += *std::min_element(f.table.begin(), f.table.end());
  stats.lowerBound = std::max(bound, simple);
  stats.exact = false;

  // A choice: each node, last eliminated first, takes its best
  // configuration under its bucket's factors given the nodes already
  // chosen; then iterated conditional modes over the original factors
  // improve it until no single node's change does.
  for (size_t i = order.size(); i-- > 0;) {
    int x = order[i];
    int best = 0;
    double bestCost = kInf;
    for (int c = 0; c < configs(x); ++c) {
      choice[x] = c;
      double v = 0;
      for (const Factor &f : buckets[i])
        v += factorValue(f, choice);
      if (v < bestCost) {
        bestCost = v;
        best = c;
      }
    }
    choice[x] = best;
  }
  std::map<int, std::vector<const Factor *>> factorsOf;
  for (const Factor &f : original)
    for (int v : f.vars)
      factorsOf[v].push_back(&f);
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool changed = false;
    for (int x : order) {
      int best = choice[x];
      double bestCost = kInf;
      for (int c = 0; c < configs(x); ++c) {
        choice[x] = c;
        double v = 0;
        for (const Factor *f : factorsOf[x])
          v += factorValue(*f, choice);
        if (v < bestCost) {
          bestCost = v;
          best = c;
        }
      }
      changed |= best != choice[x];
      choice[x] = best;
    }
    if (!changed)
      break;
  }
}

} // namespace hd::elimination
