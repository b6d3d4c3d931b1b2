//===- VariableElimination.cpp - exact min-sum over the remaining factors -===//
//
// What node, leaf and edge elimination leave (every node of degree three
// or more) is solved exactly by eliminating one node at a time: the
// factors that touch it become one factor over their other nodes, the
// least sum over its configurations. Minimizing out a node is the search's
// largest loop on wide graphs, so its inner loops are vector kernels and
// large factors split over every core.
//
//===----------------------------------------------------------------------===//

#include "Eliminator.h"

#include "hd/Support/VectorClones.h"

#include <algorithm>
#include <thread>

namespace hd::elimination {

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

} // namespace hd::elimination
