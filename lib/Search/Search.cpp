//===- Search.cpp - exact search by elimination ---------------------------===//

#include "hd/Search/Search.h"
#include "hd/Support/VectorClones.h"

#include "MinMarginals.h"
#include "MinPlus.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <thread>
#include <utility>

namespace hd {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

int64_t saturatingMul(int64_t a, int64_t b) {
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a)
    return std::numeric_limits<int64_t>::max();
  return a * b;
}

/// A factor over any number of nodes: the remaining graph once degree <= 2
/// eliminations stop. table[index], index row-major over `vars` (last var
/// fastest).
struct Factor {
  std::vector<int> vars;
  std::vector<int64_t> dims;
  std::vector<double> table;
};

/// One elimination, as undo needs it: the eliminated node's best
/// configuration for every configuration of the nodes it depended on.
struct Elimination {
  int node;
  std::vector<int> scope;      // nodes whose choice determines `node`'s
  std::vector<int64_t> dims;   // their configuration counts
  std::vector<int> argmin;     // row-major over `scope`
};

class Eliminator {
public:
  Eliminator(const SearchGraph &graph, const SearchOptions &options)
      : graph(graph), options(options), unary(graph.nodeCost),
        adjacent(graph.numNodes()), alive(graph.numNodes(), true) {}

  SearchResult run();

private:
  int configs(int n) const { return graph.numConfigs(n); }

  /// The pairwise table oriented [a][b], created empty (zeros) if missing.
  std::vector<double> &pair(int a, int b, bool &transposed);
  void addPair(int a, int b, const std::vector<double> &table);
  std::vector<double> takePair(int a, int b); // oriented [a][b], removed

  void eliminateIsolated(int j);
  void eliminateLeaf(int j);
  void eliminateSeriesNode(int j);
  void reduceDegreeTwo();
  void solveRemaining(std::vector<int> &choice);
  /// The nodes of `vars` in min-weight order (each time the one whose new
  /// factor is smallest), from the factors' scopes alone, and the largest
  /// factor that order builds.
  std::pair<std::vector<int>, int64_t>
  eliminationOrder(const std::vector<Factor> &factors,
                   const std::vector<int> &vars) const;
  /// The factor over the touching factors' other nodes: the least sum over
  /// x's configurations, and (when asked) which one.
  Factor minimizeOut(const std::vector<const Factor *> &touching, int x,
                     std::vector<int> *argmin,
                     std::vector<double> *leastPerX = nullptr) const;
  bool variableElimination(std::vector<Factor> factors,
                           std::vector<int> &remaining);
  void approximate(std::vector<Factor> factors, const std::vector<int> &order,
                   std::vector<int> &choice);

  const SearchGraph &graph;
  const SearchOptions &options;
  std::vector<std::vector<double>> unary;
  std::map<std::pair<int, int>, std::vector<double>> pairs; // key a < b
  std::vector<std::set<int>> adjacent;
  std::vector<bool> alive;
  std::vector<Elimination> eliminations;
  /// With options.minMarginals (else empty): every elimination's tables,
  /// and the pairs a series elimination has added to
  /// (EliminationStep::inDerived).
  std::vector<EliminationStep> steps;
  std::set<std::pair<int, int>> derived;
  bool derivedPair(int a, int b) const {
    return derived.count({std::min(a, b), std::max(a, b)}) > 0;
  }
  /// The choice of the nodes left after degree <= 2 eliminations.
  std::vector<int> remainingChoice;
  /// The optimal cost of the parts of the graph already reduced away as
  /// isolated nodes: part of any lower bound.
  double reducedCost = 0;
  int aliveCount = 0;
  SearchStats stats;
};

std::vector<double> &Eliminator::pair(int a, int b, bool &transposed) {
  transposed = a > b;
  auto key = transposed ? std::make_pair(b, a) : std::make_pair(a, b);
  return pairs[key];
}

void Eliminator::addPair(int a, int b, const std::vector<double> &table) {
  bool transposed;
  std::vector<double> &t = pair(a, b, transposed);
  int ca = configs(a), cb = configs(b);
  bool merge = !t.empty();
  if (!merge)
    t.assign(static_cast<size_t>(ca) * cb, 0.0);
  else
    ++stats.edgeEliminations; // A parallel edge folds into the existing one.
  for (int i = 0; i < ca; ++i)
    for (int j = 0; j < cb; ++j) {
      double v = table[static_cast<size_t>(i) * cb + j];
      if (transposed)
        t[static_cast<size_t>(j) * ca + i] += v;
      else
        t[static_cast<size_t>(i) * cb + j] += v;
    }
  adjacent[a].insert(b);
  adjacent[b].insert(a);
}

std::vector<double> Eliminator::takePair(int a, int b) {
  bool transposed = a > b;
  auto key = transposed ? std::make_pair(b, a) : std::make_pair(a, b);
  auto it = pairs.find(key);
  assert(it != pairs.end() && "no such edge");
  std::vector<double> t = std::move(it->second);
  pairs.erase(it);
  adjacent[a].erase(b);
  adjacent[b].erase(a);
  return transposed ? transposedTable(t, configs(b), configs(a)) : t;
}

void Eliminator::eliminateIsolated(int j) {
  const std::vector<double> &u = unary[j];
  int best = static_cast<int>(std::min_element(u.begin(), u.end()) - u.begin());
  reducedCost += u[best]; // This part of the graph is settled.
  if (options.minMarginals)
    steps.push_back({EliminationStep::Isolated, j, -1, -1, u, {}, {}, {}});
  eliminations.push_back({j, {}, {}, {best}});
  alive[j] = false;
}

void Eliminator::eliminateLeaf(int j) {
  int k = *adjacent[j].begin();
  bool inDerived = derivedPair(j, k);
  std::vector<double> e = takePair(j, k); // [cj][ck]
  int cj = configs(j), ck = configs(k);
  Elimination rec{j, {k}, {ck}, std::vector<int>(ck, 0)};
  std::vector<double> added(ck);
  for (int b = 0; b < ck; ++b) {
    double best = kInf;
    for (int a = 0; a < cj; ++a) {
      double v = unary[j][a] + e[static_cast<size_t>(a) * ck + b];
      if (v < best) {
        best = v;
        rec.argmin[b] = a;
      }
    }
    unary[k][b] += best;
    added[b] = best;
  }
  if (options.minMarginals)
    steps.push_back({EliminationStep::Leaf,
                     j,
                     -1,
                     k,
                     unary[j],
                     std::move(e),
                     {},
                     std::move(added),
                     inDerived});
  eliminations.push_back(std::move(rec));
  alive[j] = false;
  ++stats.leafEliminations;
}

void Eliminator::eliminateSeriesNode(int j) {
  auto it = adjacent[j].begin();
  int i = *it++, k = *it;
  bool inDerived = derivedPair(i, j), outDerived = derivedPair(j, k);
  std::vector<double> in = takePair(i, j);  // [ci][cj]
  std::vector<double> out = takePair(j, k); // [cj][ck]
  int ci = configs(i), cj = configs(j), ck = configs(k);
  std::vector<double> merged(static_cast<size_t>(ci) * ck, kInf);
  Elimination rec{
      j, {i, k}, {ci, ck}, std::vector<int>(static_cast<size_t>(ci) * ck, 0)};
  minPlusProduct(ci, cj, ck, in.data(), unary[j].data(), out.data(),
                 merged.data(), rec.argmin.data());
  addPair(i, k, merged);
  if (options.minMarginals) {
    derived.insert({std::min(i, k), std::max(i, k)});
    steps.push_back({EliminationStep::Series, j, i, k, unary[j], std::move(in),
                     std::move(out), std::move(merged), inDerived, outDerived});
  }
  eliminations.push_back(std::move(rec));
  alive[j] = false;
  ++stats.nodeEliminations;
}

void Eliminator::reduceDegreeTwo() {
  aliveCount = graph.numNodes();
  bool changed = true;
  // The last node is left to the remaining-graph solver, so K >= 1.
  while (changed && aliveCount > 1) {
    changed = false;
    for (int n = 0; n < graph.numNodes() && aliveCount > 1; ++n) {
      if (!alive[n])
        continue;
      switch (adjacent[n].size()) {
      case 0:
        eliminateIsolated(n);
        break;
      case 1:
        eliminateLeaf(n);
        break;
      case 2:
        eliminateSeriesNode(n);
        break;
      default:
        continue;
      }
      --aliveCount;
      changed = true;
    }
  }
}

/// Undo: replays eliminations backwards, each node taking its best
/// configuration given the nodes it was folded into.
void undo(const std::vector<Elimination> &eliminations,
          std::vector<int> &choice) {
  for (auto it = eliminations.rbegin(); it != eliminations.rend(); ++it) {
    int64_t index = 0;
    for (size_t s = 0; s < it->scope.size(); ++s)
      index = index * it->dims[s] + choice[it->scope[s]];
    choice[it->node] = it->argmin[index];
  }
}

/// Odometer over the configurations of `vars`; returns false after the last.
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

std::pair<std::vector<int>, int64_t>
Eliminator::eliminationOrder(const std::vector<Factor> &factors,
                             const std::vector<int> &vars) const {
  // The interaction graph: a node's next factor is over its neighbours, and
  // eliminating it joins them all.
  std::map<int, std::set<int>> neighbours;
  for (int x : vars)
    neighbours[x];
  for (const Factor &f : factors)
    for (int a : f.vars)
      for (int b : f.vars)
        if (a != b)
          neighbours[a].insert(b);
  std::vector<int> order;
  int64_t largest = 0;
  while (!neighbours.empty()) {
    int pick = -1;
    int64_t pickSize = std::numeric_limits<int64_t>::max();
    for (const auto &[x, adjacent] : neighbours) {
      int64_t size = 1;
      for (int v : adjacent)
        size = saturatingMul(size, configs(v));
      if (pick < 0 || size < pickSize) {
        pick = x;
        pickSize = size;
      }
    }
    std::set<int> adjacent = std::move(neighbours[pick]);
    neighbours.erase(pick);
    for (int a : adjacent) {
      std::set<int> &mine = neighbours[a];
      mine.erase(pick);
      for (int b : adjacent)
        if (b != a)
          mine.insert(b);
    }
    largest = std::max(largest, pickSize);
    order.push_back(pick);
  }
  return {order, largest};
}

/// The inner loops of minimizeOut, over one entry's configurations of x.
HD_VECTOR_CLONES
static void addTo(double *__restrict sum, const double *__restrict add, int n) {
  for (int c = 0; c < n; ++c)
    sum[c] += add[c];
}

HD_VECTOR_CLONES
static double leastOf(const double *__restrict v, int n) {
  // Eight running minima, so that the loop runs in vector lanes without
  // reassociation flags; min is exact, so the result does not depend on
  // the order.
  double lane[8] = {kInf, kInf, kInf, kInf, kInf, kInf, kInf, kInf};
  int c = 0;
  for (; c + 8 <= n; c += 8)
    for (int i = 0; i < 8; ++i)
      lane[i] = v[c + i] < lane[i] ? v[c + i] : lane[i];
  double least = kInf;
  for (; c < n; ++c)
    least = v[c] < least ? v[c] : least;
  for (double l : lane)
    least = l < least ? l : least;
  return least;
}

HD_VECTOR_CLONES
static void lowerTo(double *__restrict least, const double *__restrict v,
                    int n) {
  for (int c = 0; c < n; ++c)
    least[c] = std::min(least[c], v[c]);
}

/// `f` with node x moved to its last place: the configurations of x a
/// minimization adds up then lie side by side, not a stride apart.
static Factor withLast(const Factor &f, int x) {
  size_t pos = std::find(f.vars.begin(), f.vars.end(), x) - f.vars.begin();
  int64_t before = 1, after = 1, cx = f.dims[pos];
  for (size_t i = 0; i < f.vars.size(); ++i)
    (i < pos ? before : after) *= i == pos ? 1 : f.dims[i];
  Factor g;
  for (size_t i = 0; i < f.vars.size(); ++i)
    if (i != pos) {
      g.vars.push_back(f.vars[i]);
      g.dims.push_back(f.dims[i]);
    }
  g.vars.push_back(x);
  g.dims.push_back(cx);
  g.table.resize(f.table.size());
  for (int64_t a = 0; a < before; ++a)
    for (int64_t c = 0; c < cx; ++c)
      for (int64_t b = 0; b < after; ++b)
        g.table[(a * after + b) * cx + c] = f.table[(a * cx + c) * after + b];
  return g;
}

Factor Eliminator::minimizeOut(const std::vector<const Factor *> &given, int x,
                               std::vector<int> *argmin,
                               std::vector<double> *leastPerX) const {
  std::vector<Factor> moved;
  moved.reserve(given.size());
  std::vector<const Factor *> touching;
  for (const Factor *f : given)
    if (f->vars.back() == x) {
      touching.push_back(f);
    } else {
      moved.push_back(withLast(*f, x));
      touching.push_back(&moved.back());
    }
  std::set<int> scope;
  for (const Factor *f : touching)
    scope.insert(f->vars.begin(), f->vars.end());
  scope.erase(x);
  Factor out;
  out.vars.assign(scope.begin(), scope.end());
  int64_t size = 1;
  for (int v : out.vars) {
    out.dims.push_back(configs(v));
    size *= configs(v);
  }
  out.table.assign(size, kInf);
  if (argmin)
    argmin->assign(size, 0);
  // Each touching factor's index moves by a fixed stride when one of the
  // output's nodes steps: keep the indices as the odometer turns. x is
  // every factor's last node, so its configurations follow the index.
  size_t m = out.vars.size(), t = touching.size();
  std::vector<int64_t> stride(t * m, 0);
  for (size_t f = 0; f < t; ++f) {
    int64_t s = touching[f]->dims.back();
    for (size_t i = touching[f]->vars.size() - 1; i-- > 0;) {
      int v = touching[f]->vars[i];
      stride[f * m + (std::find(out.vars.begin(), out.vars.end(), v) -
                      out.vars.begin())] = s;
      s *= touching[f]->dims[i];
    }
  }
  int cx = configs(x);
  // Output entries [begin, end): the odometer starts at `begin`'s digits.
  // Part p also keeps, per configuration of x, the least sum it saw.
  unsigned threads = size * cx * int64_t(t) < (1 << 22)
                         ? 1
                         : std::max(1u, std::thread::hardware_concurrency());
  threads = unsigned(std::min<int64_t>(threads, size));
  std::vector<std::vector<double>> least(leastPerX ? threads : 0,
                                         std::vector<double>(cx, kInf));
  auto minimizeRange = [&](unsigned part, int64_t begin, int64_t end) {
    std::vector<double> sum(cx);
    std::vector<int> assign(m, 0);
    std::vector<int64_t> at(t, 0);
    for (size_t k = m, rest = begin; k-- > 0;) {
      assign[k] = int(rest % out.dims[k]);
      rest /= out.dims[k];
      for (size_t f = 0; f < t; ++f)
        at[f] += assign[k] * stride[f * m + k];
    }
    for (int64_t index = begin; index < end; ++index) {
      std::copy_n(touching[0]->table.data() + at[0], cx, sum.begin());
      for (size_t f = 1; f < t; ++f)
        addTo(sum.data(), touching[f]->table.data() + at[f], cx);
      double best = leastOf(sum.data(), cx);
      out.table[index] = best;
      if (leastPerX)
        lowerTo(least[part].data(), sum.data(), cx);
      if (argmin) { // the first configuration that attains it
        auto first = std::find(sum.begin(), sum.end(), best);
        (*argmin)[index] = first == sum.end() ? 0 : int(first - sum.begin());
      }
      // Advance the odometer (last node fastest) and every factor's index.
      for (size_t k = m; k-- > 0;) {
        if (++assign[k] < out.dims[k]) {
          for (size_t f = 0; f < t; ++f)
            at[f] += stride[f * m + k];
          break;
        }
        assign[k] = 0;
        for (size_t f = 0; f < t; ++f)
          at[f] -= (out.dims[k] - 1) * stride[f * m + k];
      }
    }
  };
  // Split the entries over the cores when there is much to sum (the
  // mini-bucket bound of a graph like DenseNet's builds many 2^18 tables).
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i)
    pool.emplace_back(minimizeRange, i, size * i / threads,
                      size * (i + 1) / threads);
  minimizeRange(0, 0, size / threads);
  for (std::thread &th : pool)
    th.join();
  if (leastPerX) {
    leastPerX->assign(cx, kInf);
    for (const std::vector<double> &l : least)
      for (int c = 0; c < cx; ++c)
        (*leastPerX)[c] = std::min((*leastPerX)[c], l[c]);
  }
  return out;
}

bool Eliminator::variableElimination(std::vector<Factor> factors,
                                     std::vector<int> &remaining) {
  auto [order, largest] = eliminationOrder(factors, remaining);
  std::vector<int> choice(graph.numNodes(), 0);
  if (largest > options.factorLimit) {
    if (options.exactOnly) {
      stats.exact = false;
      return false;
    }
    // Too wide to be exact: a bound and a good choice instead.
    approximate(std::move(factors), order, choice);
    for (int v : remaining)
      remainingChoice[v] = choice[v];
    return false;
  }
  stats.largestFactor = largest;
  std::vector<Elimination> local;
  for (int pick : order) {
    std::vector<Factor> touching, others;
    for (Factor &f : factors)
      (std::find(f.vars.begin(), f.vars.end(), pick) != f.vars.end() ? touching
                                                                     : others)
          .push_back(std::move(f));
    Elimination rec{pick, {}, {}, {}};
    std::vector<const Factor *> members;
    for (const Factor &f : touching)
      members.push_back(&f);
    Factor out = minimizeOut(members, pick, &rec.argmin);
    rec.scope = out.vars;
    rec.dims = out.dims;
    others.push_back(std::move(out));
    factors = std::move(others);
    local.push_back(std::move(rec));
  }
  // Every factor is now over no variables: constants.
  undo(local, choice);
  for (int v : remaining)
    remainingChoice[v] = choice[v];
  return true;
}

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
  if (space <= options.enumerationLimit) {
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
  } else {
    variableElimination(std::move(factors), remaining);
  }
  for (int n : remaining)
    choice[n] = remainingChoice[n];
}

} // namespace

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

SearchResult searchOptimal(const SearchGraph &graph,
                           const SearchOptions &options) {
  if (graph.numNodes() == 0)
    return {};
  return Eliminator(graph, options).run();
}

int64_t combinationCount(const SearchGraph &graph) {
  int64_t n = 1;
  for (int i = 0; i < graph.numNodes(); ++i)
    n = saturatingMul(n, graph.numConfigs(i));
  return n;
}

std::optional<SearchResult> searchBruteForce(const SearchGraph &graph,
                                             int64_t limit) {
  int64_t count = combinationCount(graph);
  if (count > limit)
    return std::nullopt;
  SearchResult best;
  best.cost = kInf;
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
  } while (advance(choice, dims));
  best.stats.enumerated = count;
  best.stats.lowerBound = best.cost;
  return best;
}

} // namespace hd
