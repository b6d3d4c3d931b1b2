//===- ParallelConfig.h - degrees of a layer's split -----------*- C++ -*-===//
//
// Plain C++ twin of #hd.pconfig: one degree per dimension of the partitioned
// shape (n, c, h, w or n, c).
//
//===----------------------------------------------------------------------===//

#ifndef HD_TILING_PARALLELCONFIG_H
#define HD_TILING_PARALLELCONFIG_H

#include <cstdint>
#include <string>
#include <vector>

namespace hd {

struct ParallelConfig {
  std::vector<int64_t> degrees;

  /// Inline: the search asks for it in its inner loops.
  int64_t tasks() const {
    int64_t t = 1;
    for (int64_t d : degrees)
      t *= d;
    return t;
  }
  /// "n=4 c=1 h=2 w=2" (2-D: "n=4 c=2").
  std::string str() const;
  bool operator==(const ParallelConfig &o) const {
    return degrees == o.degrees;
  }
  bool operator!=(const ParallelConfig &o) const { return !(*this == o); }
};

/// The replica groups of a layer's parameters: tasks with the same tile
/// index along c (dim 1) hold the same parameter shard and sum their
/// gradients. Group g lists its tasks in increasing order.
std::vector<std::vector<int64_t>> replicaGroups(const ParallelConfig &config);

/// The candidate configurations of a layer whose partitioned shape is
/// `shape` on `devices` devices: every combination of degrees whose product
/// divides the device count (so 1, 2, 3 and 6 tasks on 6 devices; fewer
/// tasks than devices included) and where no degree exceeds its dimension.
/// Restricting products to divisors keeps the candidate count small
/// (70 for a 4-D layer on 16 devices) while covering every way to use a
/// whole, half, third... of the machine.
std::vector<ParallelConfig> enumerateConfigs(const std::vector<int64_t> &shape,
                                             int64_t devices);

/// Which configurations a layer kind can run, as its op declares them
/// (LayerOpInterface::getSplitRule): the dimensions it may split, and the
/// group count a channel split must keep whole. The search, the baselines,
/// the profiler and the verifier all read the same rule.
struct SplitRule {
  /// Bit d set: dimension d of the partitioned shape may be split.
  unsigned splittableDims = 0xF;
  /// The channel degree must divide this: a grouped convolution runs whole
  /// groups on each task. 1 for layers without groups.
  int64_t channelGroups = 1;

  bool canSplit(unsigned dim) const { return (splittableDims >> dim) & 1; }
  /// The first dimension `config` splits against the rule, or -1 when it
  /// splits only splittable ones. Group divisibility is checked apart.
  int firstForbiddenDim(const ParallelConfig &config) const;
  bool keepsGroupsWhole(const ParallelConfig &config) const {
    return channelGroups <= 1 || config.degrees.size() < 2 ||
           channelGroups % config.degrees[1] == 0;
  }
  bool allows(const ParallelConfig &config) const {
    return firstForbiddenDim(config) < 0 && keepsGroupsWhole(config);
  }
};

/// The configurations a layer may take on `devices` devices: those of
/// enumerateConfigs that its rule allows, in the same order.
std::vector<ParallelConfig> candidateConfigs(const std::vector<int64_t> &shape,
                                             const SplitRule &rule,
                                             int64_t devices);

} // namespace hd

#endif // HD_TILING_PARALLELCONFIG_H
