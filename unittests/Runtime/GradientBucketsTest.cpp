//===- GradientBucketsTest.cpp - gradient sums gathered into buckets ------===//
//
// Against the rules written out: every gradient is summed once, in its own
// group's bucket, in the order it was added; no bucket of several
// gradients outgrows the bucket size; a bucket closes only when the next
// gradient of its group would overflow it (or at the flush). And the
// contiguous runs against adjacency checked element by element.
//
//===----------------------------------------------------------------------===//

#include "hdrt/common/GradientBuckets.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace {

using Buckets = hdrt::GradientBuckets<int>;

struct Added {
  int group;
  float *data;
  int64_t count;
};

} // namespace

TEST(GradientBuckets, EachGradientOnceInOrderWithinTheSize) {
  std::mt19937 rng(99);
  const int64_t bucketBytes = 1024;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<float> storage(100000);
    std::uniform_int_distribution<int> groupOf(0, trial % 4);
    std::uniform_int_distribution<int64_t> countOf(1, 400); // up to 1600 B
    Buckets buckets(bucketBytes);
    std::vector<Added> added;
    std::vector<Buckets::Bucket> summed;
    float *next = storage.data();
    int gradients = 1 + trial % 40;
    for (int i = 0; i < gradients; ++i) {
      Added a{groupOf(rng), next, countOf(rng)};
      next += a.count;
      added.push_back(a);
      for (Buckets::Bucket &b : buckets.add(a.group, a.data, a.count)) {
        // Closed by this gradient: it goes alone, being a bucket's size,
        // or its group's open bucket could not take it.
        bool alone = b.segments.size() == 1 && b.segments[0].first == a.data;
        int64_t bytes = int64_t(sizeof(float));
        EXPECT_EQ(b.group, a.group);
        if (alone) {
          EXPECT_GE(a.count * bytes, bucketBytes);
        } else {
          EXPECT_GT((b.count + a.count) * bytes, bucketBytes);
        }
        summed.push_back(std::move(b));
      }
    }
    for (Buckets::Bucket &b : buckets.flush())
      summed.push_back(std::move(b));
    EXPECT_TRUE(buckets.empty());

    // Per group, the summed segments in order are the added gradients in
    // order: each once, none lost.
    std::map<int, std::vector<std::pair<float *, int64_t>>> want, got;
    for (const Added &a : added)
      want[a.group].push_back({a.data, a.count});
    for (const Buckets::Bucket &b : summed) {
      int64_t total = 0;
      for (auto s : b.segments) {
        got[b.group].push_back(s);
        total += s.second;
      }
      EXPECT_EQ(total, b.count);
      ASSERT_FALSE(b.segments.empty());
      if (b.segments.size() > 1) {
        EXPECT_LE(b.count * int64_t(sizeof(float)), bucketBytes);
      }
    }
    EXPECT_EQ(got, want);
  }
}

TEST(GradientBuckets, LargeGradientsGoAloneAfterTheirGroupsBucket) {
  std::vector<float> storage(2000);
  Buckets buckets(1024); // 256 floats
  EXPECT_TRUE(buckets.add(0, storage.data(), 10).empty());
  EXPECT_TRUE(buckets.add(1, storage.data() + 10, 10).empty());
  // 300 floats are a bucket's size: group 0's open bucket goes first, then
  // they go alone; group 1's bucket stays open.
  std::vector<Buckets::Bucket> closed =
      buckets.add(0, storage.data() + 20, 300);
  ASSERT_EQ(closed.size(), 2u);
  EXPECT_EQ(closed[0].count, 10);
  EXPECT_EQ(closed[1].count, 300);
  EXPECT_TRUE(buckets.add(0, storage.data() + 320, 250).empty());
  // 250 + 10 floats overflow 256: the 250 close.
  closed = buckets.add(0, storage.data() + 570, 10);
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0].count, 250);
  // The flush: in the order the buckets opened.
  closed = buckets.flush();
  ASSERT_EQ(closed.size(), 2u);
  EXPECT_EQ(closed[0].group, 1);
  EXPECT_EQ(closed[1].group, 0);
}

TEST(GradientBuckets, ContiguousRunsMergeExactlyTheAdjacent) {
  std::mt19937 rng(7);
  std::vector<float> storage(10000);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<hdrt::Segment> segments;
    int64_t at = 0;
    std::uniform_int_distribution<int64_t> count(1, 20), gap(0, 2);
    for (int i = 0; i < 12; ++i) {
      at += gap(rng) == 0 ? 5 : 0; // a third of them leave a hole
      int64_t n = count(rng);
      segments.push_back({storage.data() + at, n});
      at += n;
    }
    std::vector<hdrt::Segment> runs = hdrt::contiguousRuns(segments);
    // Element by element: the runs cover the segments' elements in order.
    std::vector<float *> want, got;
    for (auto [data, n] : segments)
      for (int64_t i = 0; i < n; ++i)
        want.push_back(data + i);
    for (auto [data, n] : runs)
      for (int64_t i = 0; i < n; ++i)
        got.push_back(data + i);
    EXPECT_EQ(got, want);
    // And no two runs could have been one.
    for (size_t i = 1; i < runs.size(); ++i)
      EXPECT_NE(runs[i - 1].first + runs[i - 1].second, runs[i].first);
  }
}
