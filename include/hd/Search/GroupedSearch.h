//===- GroupedSearch.h - exact search, tables on demand ------*- C++ -*-===//
//
// On hundreds of devices a 4-D layer has hundreds of configurations, and
// filling every edge table (C^2 transfer costs, each a pass over the
// devices) costs far more than the elimination. Most of those
// configurations run the layer on fewer devices and never win. This search
// proves so without computing their tables:
//   1. Every node's configurations come in groups. Some (by default group
//      0; startsExact) are searched exactly from the start; each other
//      group stands in as one configuration whose costs are lower bounds
//      for every member: its node cost is the members' least, its edge
//      costs come from GroupedCosts::standInsBound (0 where two groups
//      meet).
//   2. The optimum of that reduced graph is a lower bound for the whole
//      problem. If it picks no stand-in, it is a real strategy with that
//      cost: optimal.
//   3. Otherwise the groups it picked join the exact part (their tables are
//      filled) and the search repeats. Before that, every configuration
//      and stand-in whose min-marginal in the reduced graph (the least
//      cost of a strategy through it, a lower bound of the true one)
//      exceeds a real strategy's cost (seeds(), and the best within the
//      exact part once the lower bound nears the best known) is in no
//      optimal strategy: it leaves the search for good. The search ends
//      at the latest when every group has joined or left, which is the
//      full search. A reduced graph too wide for exact elimination joins
//      every group at once: its heuristic choice would pick stand-ins
//      round after round.
// The result is as exact as searchOptimal on the reduced graphs: exact
// where they eliminate exactly, otherwise with the lower bound they report.
//
//===----------------------------------------------------------------------===//

#ifndef HD_SEARCH_GROUPEDSEARCH_H
#define HD_SEARCH_GROUPEDSEARCH_H

#include "hd/Search/Search.h"

#include <utility>
#include <vector>

namespace hd {

/// A block of one edge's table: costs[i * cols.size() + j] is the cost with
/// the edge's `from` node in configuration rows[i] and `to` in cols[j].
struct EdgeBlock {
  int edge = 0;
  std::vector<int> rows, cols;
  std::vector<double> costs;
};

/// The costs of a search graph whose edge tables are filled on demand.
class GroupedCosts {
public:
  virtual ~GroupedCosts();
  virtual int numNodes() const = 0;
  /// Every configuration's node cost.
  virtual const std::vector<double> &nodeCosts(int node) = 0;
  /// The group of each configuration of `node`.
  virtual const std::vector<int> &groups(int node) = 0;
  virtual int numEdges() const = 0;
  /// The edge's endpoints (from, to).
  virtual std::pair<int, int> edgeEnds(int edge) const = 0;
  /// Fills every block's costs exactly (implementations may use every core).
  virtual void fill(std::vector<EdgeBlock> &blocks) = 0;
  /// A lower bound on the edge's cost with one end in any member of group
  /// `group` (of the `from` node when groupAtFrom, else of `to`) and the
  /// other end in configuration `config`.
  virtual double groupBound(int edge, bool groupAtFrom, int group,
                            int config) = 0;
  /// A lower bound on the edge's cost with its `from` node in any member of
  /// `fromGroup` and its `to` node in any member of `toGroup`. By default
  /// the better of the two sides' least groupBound over the other's members.
  virtual double standInsBound(int edge, int fromGroup, int toGroup);
  /// Whether the search holds `group` of `node` exactly from its first
  /// round (by default group 0 alone).
  virtual bool startsExact(int node, int group) { return group == 0; }
  /// Small subsets of every node's configurations (seeds()[s][n] for node
  /// n) likely to hold a good strategy. The search first solves each
  /// exactly: the best bounds the optimum from above from the first round
  /// on (see drop in GroupedSearch.cpp). None by default.
  virtual std::vector<std::vector<std::vector<int>>> seeds() { return {}; }
};

/// Minimizes the graph's cost, filling only the tables it needs.
/// stats.rounds counts the reduced searches; stats.exactConfigs of
/// stats.allConfigs configurations were searched with their exact costs.
SearchResult searchByGroups(GroupedCosts &costs,
                            const SearchOptions &options = {});

} // namespace hd

#endif // HD_SEARCH_GROUPEDSEARCH_H
