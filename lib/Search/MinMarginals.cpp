//===- MinMarginals.cpp - least cost through every configuration ----------===//

#include "MinMarginals.h"

#include "MinPlus.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <map>
#include <utility>

namespace hd {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// What the rest of the graph adds to a table `own` whose pairwise
/// min-marginal is `whole`: the difference, infinite where `own` is (no
/// strategy goes through there).
std::vector<double> restOf(const std::vector<double> &whole,
                           const std::vector<double> &own) {
  std::vector<double> rest(own.size());
  for (size_t x = 0; x < own.size(); ++x)
    rest[x] = own[x] == kInf ? kInf : whole[x] - own[x];
  return rest;
}

/// x[rows][inner] min-times y[inner][cols].
std::vector<double> minPlus(const std::vector<double> &x,
                            const std::vector<double> &y, int rows, int inner,
                            int cols) {
  std::vector<double> product(size_t(rows) * cols, kInf), zero(inner, 0.0);
  std::vector<int> unused(product.size());
  minPlusProduct(rows, inner, cols, x.data(), zero.data(), y.data(),
                 product.data(), unused.data());
  return product;
}

using Key = std::pair<int, int>;
Key keyOf(int a, int b) { return {std::min(a, b), std::max(a, b)}; }

} // namespace

std::vector<std::vector<double>>
minMarginals(const std::vector<EliminationStep> &steps,
             const std::vector<int> &configs, int last,
             const std::vector<double> &lastUnary, double optimum) {
  std::vector<std::vector<double>> marginals(configs.size());
  // Pairwise min-marginals, stored [first][second] of the key, kept until
  // every series step that added to that pair has read them.
  std::map<Key, std::vector<double>> pairs;
  std::map<Key, int> readers;
  for (const EliminationStep &s : steps)
    if (s.kind == EliminationStep::Series)
      ++readers[keyOf(s.i, s.k)];
  auto store = [&](int a, int b, std::vector<double> table) {
    pairs[keyOf(a, b)] = a < b ? std::move(table)
                               : transposedTable(table, configs[a], configs[b]);
  };
  auto read = [&](int a, int b) { // oriented [a][b]
    Key key = keyOf(a, b);
    auto it = pairs.find(key);
    assert(it != pairs.end() && "a pair read before its consumer stored it");
    // The last reader takes the table rather than a copy; a transpose is
    // a copy already.
    bool last = --readers[key] == 0;
    std::vector<double> t;
    if (a > b)
      t = transposedTable(it->second, configs[b], configs[a]);
    else if (last)
      t = std::move(it->second);
    else
      t = it->second;
    if (last)
      pairs.erase(it);
    return t;
  };

  marginals[last] = lastUnary;
  for (auto s = steps.rbegin(); s != steps.rend(); ++s) {
    int cj = configs[s->j];
    std::vector<double> &mine = marginals[s->j];
    switch (s->kind) {
    case EliminationStep::Isolated:
      mine = s->self;
      break;
    case EliminationStep::Leaf: {
      int ck = configs[s->k];
      std::vector<double> rest = restOf(marginals[s->k], s->added);
      std::vector<double> pair(size_t(cj) * ck);
      mine.assign(cj, kInf);
      for (int a = 0; a < cj; ++a)
        for (int c = 0; c < ck; ++c) {
          double v = s->self[a] + s->in[size_t(a) * ck + c] + rest[c];
          pair[size_t(a) * ck + c] = v;
          mine[a] = std::min(mine[a], v);
        }
      if (s->inDerived)
        store(s->j, s->k, std::move(pair));
      break;
    }
    case EliminationStep::Series: {
      int ci = configs[s->i], ck = configs[s->k];
      std::vector<double> rest = restOf(read(s->i, s->k), s->added);
      // Each side's pairwise min-marginal is one more min-plus product;
      // the node's own comes from either.
      if (s->inDerived || !s->outDerived) {
        std::vector<double> pair =
            minPlus(rest, transposedTable(s->out, cj, ck), ci, ck, cj);
        mine.assign(cj, kInf);
        for (int a = 0; a < ci; ++a)
          for (int b = 0; b < cj; ++b) {
            double &v = pair[size_t(a) * cj + b];
            v += s->in[size_t(a) * cj + b] + s->self[b];
            mine[b] = std::min(mine[b], v);
          }
        if (s->inDerived)
          store(s->i, s->j, std::move(pair));
      }
      if (s->outDerived) {
        std::vector<double> pair =
            minPlus(transposedTable(s->in, ci, cj), rest, cj, ci, ck);
        bool own = mine.empty();
        if (own)
          mine.assign(cj, kInf);
        for (int b = 0; b < cj; ++b)
          for (int c = 0; c < ck; ++c) {
            double &v = pair[size_t(b) * ck + c];
            v += s->out[size_t(b) * ck + c] + s->self[b];
            if (own)
              mine[b] = std::min(mine[b], v);
          }
        store(s->j, s->k, std::move(pair));
      }
      break;
    }
    }
  }
  // Each node's least min-marginal is the optimum of its connected part;
  // the other parts add their own optimum whatever it chooses.
  std::vector<double> shift(configs.size(), 0.0);
  for (size_t n = 0; n < configs.size(); ++n) {
    double least = *std::min_element(marginals[n].begin(), marginals[n].end());
    if (least != kInf)
      shift[n] = optimum - least;
    for (double &v : marginals[n])
      v += shift[n];
  }
  return marginals;
}

} // namespace hd
