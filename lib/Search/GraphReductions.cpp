//===- GraphReductions.cpp - node, edge and leaf elimination --------------===//
//
// The paper's reductions, exact and cheap: parallel edges add into one
// table, a leaf folds into its neighbour, and a node with two neighbours
// becomes an edge between them by a min-plus product. They run until every
// node left has three neighbours or more (or one node is left), recording
// each elimination for undo and, when min-marginals are asked for, its
// tables for the backward pass (MinMarginals.h).
//
//===----------------------------------------------------------------------===//

#include "Eliminator.h"

#include "MinPlus.h"

#include <algorithm>
#include <cassert>

namespace hd::elimination {

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

} // namespace hd::elimination
