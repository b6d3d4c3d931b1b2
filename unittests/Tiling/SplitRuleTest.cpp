//===- SplitRuleTest.cpp - split rules against direct enumeration ---------===//
//
// candidateConfigs is the one candidate filter (the search, the baselines,
// hd-profile): it must give exactly the degree vectors an independent loop
// finds, with no degree above its dimension, a product that divides the
// device count, only splittable dimensions split, and groups kept whole.
//
//===----------------------------------------------------------------------===//

#include "hd/Tiling/ParallelConfig.h"

#include <gtest/gtest.h>

#include <set>

using namespace hd;

namespace {

/// Every degree vector the rule allows, by brute force.
std::set<std::vector<int64_t>> oracle(const std::vector<int64_t> &shape,
                                      const SplitRule &rule, int64_t devices) {
  std::set<std::vector<int64_t>> out;
  std::vector<int64_t> d(shape.size(), 1);
  while (true) {
    int64_t product = 1;
    bool ok = true;
    for (size_t i = 0; i < d.size(); ++i) {
      product *= d[i];
      ok &= d[i] == 1 || ((rule.splittableDims >> i) & 1);
    }
    if (d.size() > 1 && rule.channelGroups > 1)
      ok &= rule.channelGroups % d[1] == 0;
    if (ok && devices % product == 0)
      out.insert(d);
    size_t i = 0;
    while (i < d.size() && d[i] == std::min(shape[i], devices))
      d[i++] = 1;
    if (i == d.size())
      return out;
    ++d[i];
  }
}

} // namespace

TEST(SplitRule, CandidatesAreExactlyWhatTheRuleAllows) {
  const std::vector<std::vector<int64_t>> shapes = {
      {8, 6, 5, 3}, {4, 12, 2, 7}, {16, 10}, {3, 1}, {1, 9, 9, 9}};
  const std::vector<SplitRule> rules = {{},          {0b0001, 1}, {0b0010, 1},
                                        {0b1101, 1}, {0xF, 4},    {0xF, 6},
                                        {0b0011, 3}};
  int checked = 0;
  for (const auto &shape : shapes)
    for (const SplitRule &rule : rules)
      for (int64_t devices : {1, 2, 4, 6, 8, 12}) {
        std::set<std::vector<int64_t>> got;
        for (const ParallelConfig &c : candidateConfigs(shape, rule, devices)) {
          EXPECT_TRUE(rule.allows(c)) << c.str();
          EXPECT_TRUE(got.insert(c.degrees).second) << "twice: " << c.str();
        }
        EXPECT_EQ(got, oracle(shape, rule, devices))
            << "devices " << devices << " dims " << rule.splittableDims
            << " groups " << rule.channelGroups;
        ++checked;
      }
  EXPECT_EQ(checked, 5 * 7 * 6);
}

TEST(SplitRule, NamesTheFirstForbiddenDimension) {
  SplitRule rule{0b0011, 1}; // n and c only
  EXPECT_EQ(rule.firstForbiddenDim({{2, 2, 1, 1}}), -1);
  EXPECT_EQ(rule.firstForbiddenDim({{1, 1, 1, 2}}), 3);
  EXPECT_EQ(rule.firstForbiddenDim({{1, 1, 2, 2}}), 2);
  SplitRule groups{0xF, 6};
  EXPECT_TRUE(groups.keepsGroupsWhole({{1, 3, 1, 1}}));
  EXPECT_FALSE(groups.keepsGroupsWhole({{1, 4, 1, 1}}));
}
