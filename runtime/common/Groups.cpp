//===- Groups.cpp - one communicator per distinct set of ranks ------------===//

#include "hdrt/common/Groups.h"

#include <map>
#include <stdexcept>
#include <string>

namespace hdrt {

namespace {

/// The division's groups, each in ascending rank order, in the order of
/// their lowest rank.
std::vector<std::vector<int>> groupsOf(const std::vector<int64_t> &colors) {
  std::map<int64_t, size_t> indexOfColor;
  std::vector<std::vector<int>> groups;
  for (size_t r = 0; r < colors.size(); ++r) {
    if (colors[r] < 0)
      continue;
    auto [it, added] = indexOfColor.try_emplace(colors[r], groups.size());
    if (added)
      groups.emplace_back();
    groups[it->second].push_back(int(r));
  }
  return groups;
}

} // namespace

std::vector<std::vector<int>>
GroupRegistry::newSets(const std::vector<int64_t> &colorOfRank) const {
  if (colorOfRank.size() != size_t(worldSize_))
    throw std::invalid_argument(
        "a division of the world names " + std::to_string(colorOfRank.size()) +
        " ranks, not the world's " + std::to_string(worldSize_));
  std::vector<std::vector<int>> fresh;
  for (std::vector<int> &g : groupsOf(colorOfRank))
    // A lone rank needs no communicator (it combines nothing), and the
    // whole world has one already.
    if (g.size() > 1 && g.size() < size_t(worldSize_) && !known_.count(g))
      fresh.push_back(std::move(g));
  return fresh;
}

GroupRequest
GroupRegistry::request(const std::vector<int64_t> &colorOfRank) const {
  GroupRequest r;
  std::vector<std::vector<int>> fresh = newSets(colorOfRank);
  r.split = !fresh.empty();
  if (colorOfRank[size_t(rank_)] < 0)
    return r;
  for (const std::vector<int> &g : groupsOf(colorOfRank))
    if (colorOfRank[size_t(g.front())] == colorOfRank[size_t(rank_)])
      r.members = g;
  for (size_t i = 0; i < fresh.size(); ++i)
    if (fresh[i] == r.members)
      r.color = int(i);
  return r;
}

void GroupRegistry::made(const std::vector<int64_t> &colorOfRank) {
  for (std::vector<int> &g : newSets(colorOfRank))
    known_.insert(std::move(g));
}

} // namespace hdrt
