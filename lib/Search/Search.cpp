//===- Search.cpp - exact search by elimination ---------------------------===//

#include "hd/Search/Search.h"

#include <algorithm>
#include <cassert>
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
  bool variableElimination(std::vector<Factor> factors,
                           std::vector<int> &remaining);
  void approximate(const std::vector<Factor> &factors,
                   const std::vector<int> &remaining,
                   std::vector<int> &choice);

  const SearchGraph &graph;
  const SearchOptions &options;
  std::vector<std::vector<double>> unary;
  std::map<std::pair<int, int>, std::vector<double>> pairs; // key a < b
  std::vector<std::set<int>> adjacent;
  std::vector<bool> alive;
  std::vector<Elimination> eliminations;
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
  if (!transposed)
    return t;
  int ca = configs(a), cb = configs(b);
  std::vector<double> out(t.size());
  for (int i = 0; i < ca; ++i)
    for (int j = 0; j < cb; ++j)
      out[static_cast<size_t>(i) * cb + j] = t[static_cast<size_t>(j) * ca + i];
  return out;
}

void Eliminator::eliminateIsolated(int j) {
  const std::vector<double> &u = unary[j];
  int best = static_cast<int>(std::min_element(u.begin(), u.end()) - u.begin());
  reducedCost += u[best]; // This part of the graph is settled.
  eliminations.push_back({j, {}, {}, {best}});
  alive[j] = false;
}

void Eliminator::eliminateLeaf(int j) {
  int k = *adjacent[j].begin();
  std::vector<double> e = takePair(j, k); // [cj][ck]
  int cj = configs(j), ck = configs(k);
  Elimination rec{j, {k}, {ck}, std::vector<int>(ck, 0)};
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
  }
  eliminations.push_back(std::move(rec));
  alive[j] = false;
  ++stats.leafEliminations;
}

/// Rows [rowBegin, rowEnd) of the min-plus product that eliminates a series
/// node: merged[a][c] = min over b of in[a][b] + self[b] + out[b][c]. The
/// inner loop is branch-free so the compiler vectorizes it.
static void minPlusRows(int rowBegin, int rowEnd, int cj, int ck,
                        const double *__restrict in,
                        const double *__restrict self,
                        const double *__restrict out,
                        double *__restrict merged, int *__restrict argmin) {
  for (int a = rowBegin; a < rowEnd; ++a) {
    double *__restrict row = merged + static_cast<size_t>(a) * ck;
    int *__restrict arg = argmin + static_cast<size_t>(a) * ck;
    for (int b = 0; b < cj; ++b) {
      double base = in[static_cast<size_t>(a) * cj + b] + self[b];
      const double *__restrict e = out + static_cast<size_t>(b) * ck;
      for (int c = 0; c < ck; ++c) {
        double v = base + e[c];
        bool better = v < row[c];
        row[c] = better ? v : row[c];
        arg[c] = better ? b : arg[c];
      }
    }
  }
}

void Eliminator::eliminateSeriesNode(int j) {
  auto it = adjacent[j].begin();
  int i = *it++, k = *it;
  std::vector<double> in = takePair(i, j);  // [ci][cj]
  std::vector<double> out = takePair(j, k); // [cj][ck]
  int ci = configs(i), cj = configs(j), ck = configs(k);
  std::vector<double> merged(static_cast<size_t>(ci) * ck, kInf);
  Elimination rec{j, {i, k}, {ci, ck},
                  std::vector<int>(static_cast<size_t>(ci) * ck, 0)};
  // O(ci * cj * ck): split the rows over the cores when it is large.
  unsigned threads = static_cast<int64_t>(ci) * cj * ck < (1 << 22)
                         ? 1
                         : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, ci);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(minPlusRows, ci * t / threads, ci * (t + 1) / threads,
                      cj, ck, in.data(), unary[j].data(), out.data(),
                      merged.data(), rec.argmin.data());
  minPlusRows(0, ci / threads, cj, ck, in.data(), unary[j].data(), out.data(),
              merged.data(), rec.argmin.data());
  for (std::thread &t : pool)
    t.join();
  addPair(i, k, merged);
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

bool Eliminator::variableElimination(std::vector<Factor> factors,
                                     std::vector<int> &remaining) {
  std::vector<int> choice(graph.numNodes(), 0);
  std::vector<Elimination> local;
  std::set<int> left(remaining.begin(), remaining.end());
  while (!left.empty()) {
    // Min-weight order: eliminate the node whose new factor is smallest.
    int pick = -1;
    int64_t pickSize = std::numeric_limits<int64_t>::max();
    std::set<int> pickScope;
    for (int x : left) {
      std::set<int> scope;
      for (const Factor &f : factors)
        if (std::find(f.vars.begin(), f.vars.end(), x) != f.vars.end())
          scope.insert(f.vars.begin(), f.vars.end());
      scope.erase(x);
      int64_t size = 1;
      for (int v : scope)
        size = saturatingMul(size, configs(v));
      if (size < pickSize) {
        pick = x;
        pickSize = size;
        pickScope = std::move(scope);
      }
    }
    if (pickSize > options.factorLimit) {
      // Give up on exactness: keep the factors for the bound and the
      // heuristic.
      std::vector<int> rest(left.begin(), left.end());
      approximate(factors, rest, choice);
      undo(local, choice);
      for (int v : remaining)
        remainingChoice[v] = choice[v];
      return false;
    }
    stats.largestFactor = std::max(stats.largestFactor, pickSize);
    std::vector<Factor> touching, others;
    for (Factor &f : factors)
      (std::find(f.vars.begin(), f.vars.end(), pick) != f.vars.end()
           ? touching
           : others)
          .push_back(std::move(f));
    Factor out;
    out.vars.assign(pickScope.begin(), pickScope.end());
    for (int v : out.vars)
      out.dims.push_back(configs(v));
    out.table.assign(pickSize, kInf);
    Elimination rec{pick, out.vars, out.dims,
                    std::vector<int>(pickSize, 0)};
    std::vector<int> assign(out.vars.size(), 0);
    int64_t index = 0;
    do {
      for (size_t s = 0; s < assign.size(); ++s)
        choice[out.vars[s]] = assign[s];
      for (int c = 0; c < configs(pick); ++c) {
        choice[pick] = c;
        double v = 0;
        for (const Factor &f : touching)
          v += factorValue(f, choice);
        if (v < out.table[index]) {
          out.table[index] = v;
          rec.argmin[index] = c;
        }
      }
      ++index;
    } while (advance(assign, out.dims));
    others.push_back(std::move(out));
    factors = std::move(others);
    local.push_back(std::move(rec));
    left.erase(pick);
  }
  // Every factor is now over no variables: constants.
  undo(local, choice);
  for (int v : remaining)
    remainingChoice[v] = choice[v];
  return true;
}

void Eliminator::approximate(const std::vector<Factor> &factors,
                             const std::vector<int> &remaining,
                             std::vector<int> &choice) {
  // Lower bound: the settled parts plus every factor at its own minimum.
  double bound = reducedCost;
  for (const Factor &f : factors)
    bound += *std::min_element(f.table.begin(), f.table.end());
  stats.lowerBound = bound;
  stats.exact = false;
  // Iterated conditional modes from the all-zero choice: each node in turn
  // takes its best configuration given the others, until none changes.
  for (int x : remaining)
    choice[x] = 0;
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool changed = false;
    for (int x : remaining) {
      int best = choice[x];
      double bestCost = kInf;
      for (int c = 0; c < configs(x); ++c) {
        choice[x] = c;
        double v = 0;
        for (const Factor &f : factors)
          if (std::find(f.vars.begin(), f.vars.end(), x) != f.vars.end())
            v += factorValue(f, choice);
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
    factors.push_back(
        {{key.first, key.second}, {configs(key.first), configs(key.second)},
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
