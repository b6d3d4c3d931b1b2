//===- ConstrainedSearch.cpp - the fastest choice within a capacity -------===//

#include "hd/Search/ConstrainedSearch.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>

namespace hd {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
/// Relative slack for comparing sums of the same terms in another order.
constexpr double kTolerance = 1e-9;

/// a < b by more than rounding (an infinite b: by anything).
bool below(double a, double b) {
  return std::isinf(b) ? a < b : a < b - kTolerance * std::abs(b);
}

/// allowed[n][c]: configuration c of node n is still a choice.
using Allowed = std::vector<std::vector<char>>;

/// A choice with its time and memory.
struct Point {
  std::vector<int> choice;
  double time = kInf, memory = kInf;
};

/// What the relaxation of a subproblem proves: a lower bound on its
/// fastest choice that fits, and, while the bound is below the incumbent,
/// the two hull points around the capacity that branching separates.
struct Bound {
  double lower = kInf;
  std::optional<Point> over, within;
};

class Solver {
public:
  Solver(const SearchGraph &time, const SearchGraph &memory, double capacity,
         const ConstrainedOptions &options)
      : time(time), memory(memory), capacity(capacity), options(options) {}

  ConstrainedResult run();

private:
  /// time + lambda * memory over the allowed configurations; an infinite
  /// lambda means memory alone.
  SearchGraph combined(double lambda, const Allowed &allowed) const;
  SearchResult solve(double lambda, const Allowed &allowed);
  Point pointOf(const std::vector<int> &choice) const {
    return {choice, evaluate(time, choice), evaluate(memory, choice)};
  }
  /// Keeps `p` when it fits and beats the incumbent.
  void offer(const Point &p) {
    if (p.memory <= capacity && p.time < best.time)
      best = p;
  }
  Bound bound(const Allowed &allowed, bool root);
  /// The node whose configuration separates `over` from `within` most (in
  /// memory), among those with a choice left; -1 when none has.
  int branchNode(const Bound &b, const Allowed &allowed) const;

  const SearchGraph &time;
  const SearchGraph &memory;
  double capacity;
  const ConstrainedOptions &options;
  Point best;
  bool innerExact = true;
  ConstrainedResult result;
};

SearchGraph Solver::combined(double lambda, const Allowed &allowed) const {
  bool memoryOnly = std::isinf(lambda);
  auto mix = [&](double t, double m) {
    return memoryOnly ? m : t + lambda * m;
  };
  SearchGraph g;
  for (int n = 0; n < time.numNodes(); ++n) {
    std::vector<double> cost(time.numConfigs(n));
    for (int c = 0; c < time.numConfigs(n); ++c)
      cost[c] = allowed[n][c] ? mix(time.nodeCost[n][c], memory.nodeCost[n][c])
                              : kInf;
    g.addNode(std::move(cost));
  }
  for (size_t e = 0; e < time.edges.size(); ++e) {
    const SearchEdge &te = time.edges[e];
    std::vector<double> cost(te.cost.size());
    for (size_t i = 0; i < cost.size(); ++i)
      cost[i] = mix(te.cost[i], memory.edges[e].cost[i]);
    g.addEdge(te.from, te.to, std::move(cost));
  }
  return g;
}

SearchResult Solver::solve(double lambda, const Allowed &allowed) {
  ++result.searches;
  SearchResult r = searchOptimal(combined(lambda, allowed), options.search);
  innerExact &= r.stats.exact;
  return r;
}

Bound Solver::bound(const Allowed &allowed, bool root) {
  Bound b;
  // The fastest choice: when it fits, nothing in this subproblem is faster.
  SearchResult fastest = solve(0, allowed);
  Point over = pointOf(fastest.choice);
  if (std::isinf(over.time))
    return b; // every remaining combination is excluded
  b.lower = fastest.stats.lowerBound;
  if (root)
    result.result.stats.capacityBinds = over.memory > capacity;
  if (over.memory <= capacity) {
    offer(over);
    return b;
  }
  // The smallest choice: when it does not fit, nothing here does.
  SearchResult smallest = solve(kInf, allowed);
  Point within = pointOf(smallest.choice);
  if (root) {
    result.smallestChoice = within.choice;
    result.smallestMemory = within.memory;
    result.minMemoryExact = smallest.stats.exact;
  }
  if (smallest.stats.lowerBound > capacity) {
    b.lower = kInf;
    return b;
  }
  b.over = over;
  if (within.memory > capacity)
    return b; // an approximate memory search found nothing that fits
  offer(within);
  // Walk the lower convex hull of (memory, time) between the two: each
  // lambda is the slope of the segment joining them, and a choice below
  // that segment becomes the new endpoint on its side of the capacity.
  for (int step = 0; step < 64 && below(over.time, within.time); ++step) {
    double lambda = (within.time - over.time) / (over.memory - within.memory);
    SearchResult r = solve(lambda, allowed);
    b.lower = std::max(b.lower, r.stats.lowerBound - lambda * capacity);
    Point p = pointOf(r.choice);
    offer(p);
    double line = over.time + lambda * over.memory;
    if (!below(p.time + lambda * p.memory, line))
      break; // the segment is on the hull: lambda is the best multiplier
    (p.memory > capacity ? over : within) = std::move(p);
  }
  b.over = std::move(over);
  b.within = std::move(within);
  return b;
}

int Solver::branchNode(const Bound &b, const Allowed &allowed) const {
  int pick = -1;
  double pickGap = -1;
  for (int n = 0; n < time.numNodes(); ++n) {
    if (std::count(allowed[n].begin(), allowed[n].end(), 1) < 2)
      continue;
    int o = b.over->choice[n];
    double gap = memory.nodeCost[n][o];
    if (b.within) {
      int w = b.within->choice[n];
      if (o == w)
        continue;
      gap = std::abs(memory.nodeCost[n][o] - memory.nodeCost[n][w]);
    }
    if (gap > pickGap) {
      pick = n;
      pickGap = gap;
    }
  }
  // The hull points agree wherever a choice is left: branch on any such
  // node, so that the subproblems still shrink.
  if (pick < 0 && b.within)
    for (int n = 0; n < time.numNodes() && pick < 0; ++n)
      if (std::count(allowed[n].begin(), allowed[n].end(), 1) >= 2)
        pick = n;
  return pick;
}

ConstrainedResult Solver::run() {
  Allowed root(time.numNodes());
  for (int n = 0; n < time.numNodes(); ++n)
    root[n].assign(time.numConfigs(n), 1);
  // Depth first, each subproblem with its parent's bound, which holds for
  // it until it is solved.
  std::vector<std::pair<Allowed, double>> open;
  open.push_back({std::move(root), -kInf});
  double unresolved = kInf; // the least bound of subproblems left open
  std::chrono::steady_clock::time_point branchStart;
  SearchStats &stats = result.result.stats;
  while (!open.empty()) {
    auto [allowed, parentLower] = std::move(open.back());
    open.pop_back();
    if (!below(parentLower, best.time))
      continue;
    if (stats.subproblems >= options.maxSubproblems ||
        (stats.subproblems > 0 &&
         std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       branchStart)
                 .count() > options.branchSeconds)) {
      unresolved = std::min(unresolved, parentLower);
      continue;
    }
    bool isRoot = stats.subproblems++ == 0;
    Bound b = bound(allowed, isRoot);
    if (isRoot)
      branchStart = std::chrono::steady_clock::now();
    if (!below(b.lower, best.time))
      continue;
    if (!b.over) {
      // An approximate search's bound that its choice does not reach:
      // nothing to branch on, the gap stays.
      unresolved = std::min(unresolved, b.lower);
      continue;
    }
    int n = branchNode(b, allowed);
    if (n < 0) {
      // One combination is left, and it does not fit.
      continue;
    }
    int c = b.over->choice[n];
    Allowed without = allowed;
    without[n][c] = 0;
    Allowed only = std::move(allowed);
    std::fill(only[n].begin(), only[n].end(), 0);
    only[n][c] = 1;
    open.push_back({std::move(without), b.lower});
    open.push_back({std::move(only), b.lower});
  }
  result.feasible = !std::isinf(best.time);
  if (result.feasible) {
    result.result.choice = best.choice;
    result.result.cost = best.time;
    result.memory = best.memory;
  }
  stats.exact = innerExact && std::isinf(unresolved);
  stats.lowerBound = std::min(best.time, unresolved);
  return result;
}

} // namespace

ConstrainedResult searchWithinCapacity(const SearchGraph &time,
                                       const SearchGraph &memory,
                                       double capacity,
                                       const ConstrainedOptions &options) {
  assert(time.numNodes() == memory.numNodes() &&
         time.edges.size() == memory.edges.size() &&
         "the time and memory graphs must have the same shape");
  if (time.numNodes() == 0) {
    ConstrainedResult empty;
    empty.feasible = capacity >= 0;
    return empty;
  }
  return Solver(time, memory, capacity, options).run();
}

std::optional<ConstrainedResult>
bruteForceWithinCapacity(const SearchGraph &time, const SearchGraph &memory,
                         double capacity, int64_t limit) {
  int64_t count = combinationCount(time);
  if (count > limit)
    return std::nullopt;
  ConstrainedResult r;
  r.result.cost = kInf;
  r.smallestMemory = kInf;
  std::vector<int> choice(time.numNodes(), 0);
  bool fastestFits = false;
  double fastest = kInf;
  for (bool more = true; more;) {
    double t = evaluate(time, choice), m = evaluate(memory, choice);
    if (m < r.smallestMemory) {
      r.smallestMemory = m;
      r.smallestChoice = choice;
    }
    if (t < fastest) {
      fastest = t;
      fastestFits = m <= capacity;
    }
    if (m <= capacity && t < r.result.cost) {
      r.result.cost = t;
      r.result.choice = choice;
      r.memory = m;
    }
    more = false;
    for (int n = time.numNodes(); n-- > 0;) {
      if (++choice[n] < time.numConfigs(n)) {
        more = true;
        break;
      }
      choice[n] = 0;
    }
  }
  r.feasible = !std::isinf(r.result.cost);
  r.result.stats.capacityBinds = !fastestFits;
  r.result.stats.enumerated = count;
  r.result.stats.lowerBound = r.result.cost;
  return r;
}

} // namespace hd
