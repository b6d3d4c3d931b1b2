//===- EliminationOrder.cpp - the order variable elimination follows ------===//
//
// The order decides the size of every factor variable elimination builds,
// and so whether it can run at all: each step takes the node whose new
// factor is smallest (min-weight), from the factors' scopes alone, before
// any table is built. The largest factor it predicts decides between exact
// elimination and the mini-bucket bound.
//
//===----------------------------------------------------------------------===//

#include "Eliminator.h"

#include <algorithm>

namespace hd::elimination {

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

} // namespace hd::elimination
