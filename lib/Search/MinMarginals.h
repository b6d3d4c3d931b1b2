//===- MinMarginals.h - least cost through every configuration -*- C++ -*-===//
//
// A configuration's min-marginal is the least cost of a whole strategy that
// uses it. Any configuration whose min-marginal exceeds the cost of some
// strategy is in no optimal one: the grouped search drops it from every
// later round.
//
// The backward pass of node, leaf and series elimination computes them for
// every node, at about the cost of the forward pass. Each step knows the
// pairwise min-marginal of the pair of nodes its table joined (computed where
// that table was consumed, later in the forward pass, so earlier in this
// one); what the rest of the graph adds to that pair is that minus the
// step's own table. Every table a step read then has its pairwise
// min-marginal, and the eliminated node its own: the least over the pair.
//
//===----------------------------------------------------------------------===//

#ifndef HD_LIB_SEARCH_MINMARGINALS_H
#define HD_LIB_SEARCH_MINMARGINALS_H

#include <vector>

namespace hd {

/// One degree <= 2 elimination, as the backward pass needs it. Tables are
/// row-major, oriented as named.
struct EliminationStep {
  enum Kind { Isolated, Leaf, Series } kind;
  /// The eliminated node j; a leaf's neighbour is k, a series node's are i
  /// and k.
  int j = 0, i = -1, k = -1;
  /// j's unary table as it was eliminated.
  std::vector<double> self;
  /// Series: in[i][j], out[j][k], added[i][k] (the new edge's table).
  /// Leaf: in[j][k], added[k] (what k's unary table gained).
  std::vector<double> in, out, added;
  /// Whether the consumed tables held a series step's table: only then
  /// does an earlier step need their pairwise min-marginal.
  bool inDerived = false, outDerived = false;
};

/// Every node's min-marginals, from the steps in forward order, the last
/// node alive and its unary table, and `optimum` (the least cost). The
/// graph must have reduced to that one node.
std::vector<std::vector<double>>
minMarginals(const std::vector<EliminationStep> &steps,
             const std::vector<int> &configs, int last,
             const std::vector<double> &lastUnary, double optimum);

} // namespace hd

#endif // HD_LIB_SEARCH_MINMARGINALS_H
