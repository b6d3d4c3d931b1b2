//===- GroupsTest.cpp - one communicator per distinct set of ranks --------===//
//
// Every rank keeps its own GroupRegistry and must take the same decisions
// as every other (a split is collective). The oracle enumerates each
// division's groups directly and keeps the sets seen so far.
//
//===----------------------------------------------------------------------===//

#include "hdrt/common/Groups.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <stdexcept>

namespace {

/// Each rank's group, enumerated: the ranks of the same color.
std::vector<int> groupOf(const std::vector<int64_t> &colors, int rank) {
  std::vector<int> g;
  if (colors[size_t(rank)] < 0)
    return g;
  for (size_t r = 0; r < colors.size(); ++r)
    if (colors[r] == colors[size_t(rank)])
      g.push_back(int(r));
  return g;
}

/// A random division: each rank's color among `groups`, or none.
std::vector<int64_t> randomDivision(std::mt19937 &rng, int world) {
  std::uniform_int_distribution<int> groups(1, world);
  int k = groups(rng);
  std::uniform_int_distribution<int64_t> color(-1, k - 1);
  std::vector<int64_t> colors(static_cast<size_t>(world));
  for (int64_t &c : colors)
    c = color(rng) * 7 + 3; // colors need not be small or dense
  return colors;
}

} // namespace

TEST(Groups, RanksAgreeAndEachSetIsMadeOnce) {
  std::mt19937 rng(1234);
  for (int world : {1, 2, 3, 4, 6, 8}) {
    std::vector<hdrt::GroupRegistry> ranks;
    for (int r = 0; r < world; ++r)
      ranks.emplace_back(world, r);
    std::set<std::vector<int>> made; // the oracle's communicators
    for (int division = 0; division < 200; ++division) {
      std::vector<int64_t> colors = randomDivision(rng, world);
      // The oracle: the sets of several ranks, not the world, not made yet.
      std::set<std::vector<int>> fresh;
      for (int r = 0; r < world; ++r) {
        std::vector<int> g = groupOf(colors, r);
        if (g.size() > 1 && g.size() < size_t(world) && !made.count(g))
          fresh.insert(g);
      }
      std::map<int, std::vector<int>> membersOfColor;
      for (int r = 0; r < world; ++r) {
        hdrt::GroupRequest q = ranks[size_t(r)].request(colors);
        EXPECT_EQ(q.members, groupOf(colors, r));
        EXPECT_EQ(q.split, !fresh.empty()) << "rank " << r;
        bool isNew = fresh.count(q.members) > 0;
        EXPECT_EQ(q.color >= 0, isNew) << "rank " << r;
        if (q.color >= 0) {
          // One color per new set, the same on all its members.
          auto [it, added] = membersOfColor.try_emplace(q.color, q.members);
          EXPECT_EQ(it->second, q.members);
        }
      }
      EXPECT_EQ(membersOfColor.size(), fresh.size());
      for (hdrt::GroupRegistry &g : ranks)
        g.made(colors);
      made.insert(fresh.begin(), fresh.end());
      for (const hdrt::GroupRegistry &g : ranks)
        EXPECT_EQ(g.sets(), int64_t(made.size()));
    }
  }
}

TEST(Groups, DataParallelMakesNoCommunicator) {
  // Every layer's replica group and statistics group is the whole world.
  hdrt::GroupRegistry g(4, 2);
  for (int layer = 0; layer < 100; ++layer) {
    hdrt::GroupRequest q = g.request({0, 0, 0, 0});
    EXPECT_FALSE(q.split);
    EXPECT_EQ(q.members, (std::vector<int>{0, 1, 2, 3}));
    g.made({0, 0, 0, 0});
  }
  EXPECT_EQ(g.sets(), 0);
}

TEST(Groups, RepeatedPairsSplitOnce) {
  hdrt::GroupRegistry g(4, 3);
  hdrt::GroupRequest first = g.request({0, 0, 1, 1});
  EXPECT_TRUE(first.split);
  EXPECT_EQ(first.color, 1);
  g.made({0, 0, 1, 1});
  // The same sets under other colors, and a division that reuses one of
  // them beside lone ranks.
  EXPECT_FALSE(g.request({5, 5, 2, 2}).split);
  hdrt::GroupRequest reuse = g.request({0, 1, 2, 2});
  EXPECT_FALSE(reuse.split);
  EXPECT_EQ(reuse.members, (std::vector<int>{2, 3}));
  EXPECT_EQ(reuse.color, -1);
  EXPECT_EQ(g.sets(), 2);
}

TEST(Groups, RefusesADivisionOfAnotherWorld) {
  hdrt::GroupRegistry g(4, 0);
  EXPECT_THROW(g.request({0, 0}), std::invalid_argument);
}
