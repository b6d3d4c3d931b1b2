//===- ConstrainedSearch.h - the fastest choice within a capacity -*- C++ -*-===//
//
// Plain C++, like the search it drives. Each choice has a time (the search
// graph's cost) and a memory (a second graph of the same nodes,
// configurations and edges, whose cost is the bytes a device needs); the
// search returns the fastest choice whose memory is within the capacity.
//
// Both objectives are sums of node and edge terms, so a weighted sum
// time + lambda * memory is again a search graph, solved exactly by
// elimination. That is Lagrangian relaxation: for any lambda >= 0,
// min(time + lambda * (memory - capacity)) is a lower bound on the
// constrained optimum, and its minimizers that fit are feasible choices.
// The multiplier is found on the lower convex hull of (memory, time), and
// where the hull leaves a gap, branch and bound on the configurations
// (each branch a relaxation again) closes it; a budget on the branches
// bounds the time, and the result then reports its proven lower bound (on
// large graphs the root's relaxation alone usually leaves a fraction of a
// percent, which branching would take long to close).
//
//===----------------------------------------------------------------------===//

#ifndef HD_SEARCH_CONSTRAINEDSEARCH_H
#define HD_SEARCH_CONSTRAINEDSEARCH_H

#include "hd/Search/Search.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace hd {

struct ConstrainedOptions {
  SearchOptions search;
  /// Branch-and-bound subproblems, and seconds of branching after the
  /// first (the root's relaxation always completes), before the result is
  /// returned with its gap rather than proven optimal.
  int maxSubproblems = 4096;
  double branchSeconds = std::numeric_limits<double>::infinity();
};

struct ConstrainedResult {
  /// Some choice fits.
  bool feasible = false;
  /// The fastest choice found that fits (feasible), with its time; its
  /// stats say whether it is proven optimal, give the lower bound, whether
  /// the capacity binds and how many subproblems branching solved.
  SearchResult result;
  double memory = 0;
  /// When nothing fits: the choice that needs the least memory, and that
  /// memory (a proven minimum when `minMemoryExact`).
  std::vector<int> smallestChoice;
  double smallestMemory = 0;
  bool minMemoryExact = true;
  /// Searches run.
  int searches = 0;
};

/// The fastest choice of `time` whose cost in `memory` is at most
/// `capacity`. Both graphs must validate and have the same shape.
ConstrainedResult searchWithinCapacity(const SearchGraph &time,
                                       const SearchGraph &memory,
                                       double capacity,
                                       const ConstrainedOptions &options = {});

/// The same by trying every combination; nullopt above `limit` of them.
std::optional<ConstrainedResult>
bruteForceWithinCapacity(const SearchGraph &time, const SearchGraph &memory,
                         double capacity, int64_t limit);

} // namespace hd

#endif // HD_SEARCH_CONSTRAINEDSEARCH_H
