//===- TileBoxTest.cpp - block partitions and boxes vs enumeration --------===//

#include "hd/Tiling/TileBox.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace hd;

TEST(BlockPart, SeventeenInTwoIsNinePlusEight) {
  EXPECT_EQ(blockPart(17, 2, 0), (Range{0, 9}));
  EXPECT_EQ(blockPart(17, 2, 1), (Range{9, 17}));
}

// Every element belongs to exactly one part, parts are contiguous and in
// order, sizes differ by at most one and the larger parts come first.
TEST(BlockPart, CoversExactlyOnceAndBalances) {
  for (int64_t size = 1; size <= 40; ++size)
    for (int64_t degree = 1; degree <= size; ++degree) {
      std::vector<int> owner(size, -1);
      int64_t prevSize = size + 1;
      for (int64_t i = 0; i < degree; ++i) {
        Range r = blockPart(size, degree, i);
        ASSERT_FALSE(r.empty()) << size << "/" << degree << " part " << i;
        EXPECT_LE(r.size(), prevSize);
        prevSize = r.size();
        for (int64_t e = r.lo; e < r.hi; ++e) {
          ASSERT_EQ(owner[e], -1) << "element " << e << " owned twice";
          owner[e] = i;
        }
      }
      for (int64_t e = 0; e < size; ++e)
        ASSERT_NE(owner[e], -1) << "element " << e << " unowned";
      EXPECT_LE(blockPart(size, degree, 0).size() -
                    blockPart(size, degree, degree - 1).size(),
                1);
    }
}

TEST(Range, IntersectMatchesEnumeration) {
  for (int64_t a0 = -3; a0 < 6; ++a0)
    for (int64_t a1 = a0; a1 < 7; ++a1)
      for (int64_t b0 = -3; b0 < 6; ++b0)
        for (int64_t b1 = b0; b1 < 7; ++b1) {
          std::set<int64_t> both;
          for (int64_t e = a0; e < a1; ++e)
            if (e >= b0 && e < b1)
              both.insert(e);
          Range r = intersect(Range{a0, a1}, Range{b0, b1});
          ASSERT_EQ(r.size(), (int64_t)both.size());
          if (!both.empty()) {
            EXPECT_EQ(r.lo, *both.begin());
            EXPECT_EQ(r.hi, *both.rbegin() + 1);
          }
        }
}

// The tiles of a configuration partition the tensor: every element is in
// exactly one task's tile, and task order is row-major over (n, c, h, w).
TEST(TileOfTask, TilesPartitionTheTensor) {
  std::vector<int64_t> shape = {5, 3, 7, 4};
  for (int64_t n = 1; n <= 5; ++n)
    for (int64_t c = 1; c <= 3; ++c)
      for (int64_t h = 1; h <= 7; h += 2)
        for (int64_t w = 1; w <= 4; w += 3) {
          std::vector<int64_t> degrees = {n, c, h, w};
          int64_t tasks = n * c * h * w;
          std::map<std::vector<int64_t>, int64_t> owner;
          int64_t covered = 0;
          for (int64_t t = 0; t < tasks; ++t) {
            TileBox box = tileOfTask(shape, degrees, t);
            covered += box.volume();
            for (int64_t a = box[0].lo; a < box[0].hi; ++a)
              for (int64_t b = box[1].lo; b < box[1].hi; ++b)
                for (int64_t y = box[2].lo; y < box[2].hi; ++y)
                  for (int64_t x = box[3].lo; x < box[3].hi; ++x)
                    ASSERT_TRUE(owner.emplace(std::vector<int64_t>{a, b, y, x},
                                              t)
                                    .second);
          }
          EXPECT_EQ(covered, numElements(shape));
          EXPECT_EQ((int64_t)owner.size(), numElements(shape));
          // Row-major: the last task owns the last element.
          EXPECT_EQ(owner[(std::vector<int64_t>{4, 2, 6, 3})], tasks - 1);
          EXPECT_EQ(largestTile(shape, degrees).volume(),
                    tileOfTask(shape, degrees, 0).volume());
        }
}

// forEachTile steps the coordinates instead of dividing: the same tiles in
// the same order as tileOfTask, whose tiles the test above checks, and the
// coordinates whose row-major number is the task.
TEST(TileOfTask, ForEachTileVisitsTheSameTilesInOrder) {
  std::vector<int64_t> shape = {6, 5, 7, 3};
  for (int64_t n : {1, 2, 4})
    for (int64_t c : {1, 3, 5})
      for (int64_t h : {1, 2, 7})
        for (int64_t w : {1, 3}) {
          std::vector<int64_t> degrees = {n, c, h, w};
          int64_t next = 0;
          forEachTile(
              shape, degrees,
              [&](int64_t task, const int64_t *coord, const TileBox &tile) {
                EXPECT_EQ(task, next++);
                EXPECT_EQ(tile, tileOfTask(shape, degrees, task));
                // Row-major digits of the task index.
                int64_t index = 0;
                for (size_t d = 0; d < degrees.size(); ++d)
                  index = index * degrees[d] + coord[d];
                EXPECT_EQ(index, task);
              });
          EXPECT_EQ(next, n * c * h * w);
        }
}

TEST(TileBox, IntersectMatchesElementEnumeration) {
  std::vector<int64_t> shape = {4, 6, 5};
  for (int64_t t = 0; t < 2 * 3 * 2; ++t)
    for (int64_t u = 0; u < 1 * 2 * 5; ++u) {
      TileBox a = tileOfTask(shape, {2, 3, 2}, t);
      TileBox b = tileOfTask(shape, {1, 2, 5}, u);
      int64_t common = 0;
      for (int64_t i = 0; i < shape[0]; ++i)
        for (int64_t j = 0; j < shape[1]; ++j)
          for (int64_t k = 0; k < shape[2]; ++k) {
            auto in = [&](const TileBox &x) {
              return i >= x[0].lo && i < x[0].hi && j >= x[1].lo &&
                     j < x[1].hi && k >= x[2].lo && k < x[2].hi;
            };
            common += in(a) && in(b);
          }
      EXPECT_EQ(intersect(a, b).volume(), common)
          << a.str() << " & " << b.str();
    }
}

TEST(TileBox, EmptyBoxesCompareEqual) {
  TileBox a({{0, 0}, {1, 3}});
  TileBox b({{2, 4}, {5, 5}});
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, TileBox({{0, 1}, {0, 1}}));
  EXPECT_EQ(TileBox::whole({2, 3}).str(), "[0:2, 0:3]");
}
