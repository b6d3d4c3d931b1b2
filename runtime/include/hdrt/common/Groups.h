//===- Groups.h - one communicator per distinct set of ranks ----*- C++ -*-===//
//
// A program divides the world into groups many times: each layer's replica
// groups for its gradient sums and its statistics groups. Most of those
// divisions repeat the same sets of ranks (data parallelism: every layer's
// group is the whole world), and a communicator is costly to make: MPI
// allocates context ids, NCCL connects rings and buffers on every GPU. So a
// set of ranks gets one communicator, made the first time a division names
// it and reused by every later one.
//
// This is the bookkeeping, without MPI: every rank sees every division (each
// rank's group, not only its own), so every rank decides alike whether a
// division names a new set, and the collective split that makes it is
// called on all ranks or on none.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_COMMON_GROUPS_H
#define HDRT_COMMON_GROUPS_H

#include <cstdint>
#include <set>
#include <vector>

namespace hdrt {

/// What one division of the world asks of this rank.
struct GroupRequest {
  /// This rank's group, in ascending rank order; empty: in none.
  std::vector<int> members;
  /// Whether the division names a set of several ranks, not the whole
  /// world, that has no communicator yet: then every rank splits the world,
  /// and `color` is this rank's part in that split.
  bool split = false;
  /// This rank's color in the split: the index of its group among the new
  /// sets, or -1 where its group is not new (MPI_UNDEFINED).
  int color = -1;
};

class GroupRegistry {
public:
  GroupRegistry(int worldSize, int rank) : worldSize_(worldSize), rank_(rank) {}

  /// The division `colorOfRank` (a group number per world rank; negative:
  /// the rank is in no group) and what it asks of this rank. Throws
  /// std::invalid_argument when the vector is not one entry per rank.
  GroupRequest request(const std::vector<int64_t> &colorOfRank) const;
  /// Records the sets a request found new: every rank calls it after the
  /// split it asked for, so that later divisions reuse them.
  void made(const std::vector<int64_t> &colorOfRank);

  /// The sets of ranks that have a communicator (of more than one rank and
  /// fewer than all).
  int64_t sets() const { return int64_t(known_.size()); }
  int worldSize() const { return worldSize_; }

private:
  /// The division's sets that need a communicator and have none, in the
  /// order of their lowest rank.
  std::vector<std::vector<int>>
  newSets(const std::vector<int64_t> &colorOfRank) const;

  int worldSize_, rank_;
  std::set<std::vector<int>> known_;
};

} // namespace hdrt

#endif // HDRT_COMMON_GROUPS_H
