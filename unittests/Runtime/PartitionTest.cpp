//===- PartitionTest.cpp - the runtime's tiles are the compiler's ---------===//
//
// The tile-split rule lives twice, on purpose: the compiler plans transfers
// with hd::tileOfTask and the runtime, a library of its own, splits tensors
// with hdrt::Partition. Every task of every configuration of a range of
// shapes must own the same box under both.
//
//===----------------------------------------------------------------------===//

#include "hdrt/common/Partition.h"
#include "hd/Tiling/TileBox.h"

#include <gtest/gtest.h>

TEST(Partition, TilesAreTheCompilersTiles) {
  int checked = 0;
  for (int rank : {1, 2, 4})
    for (int64_t size = 1; size <= 7; ++size) {
      std::vector<int64_t> shape(rank);
      for (int d = 0; d < rank; ++d)
        shape[d] = size + d; // different sizes per dimension
      // Every degree vector up to the dimensions, as a mixed-radix count.
      std::vector<int64_t> degrees(rank, 1);
      while (true) {
        hdrt::Partition p;
        p.rank = rank;
        for (int d = 0; d < rank; ++d) {
          p.shape[d] = shape[d];
          p.degrees[d] = degrees[d];
        }
        ASSERT_EQ(p.tasks(), hd::numElements(degrees));
        for (int64_t t = 0; t < p.tasks(); ++t) {
          hdrt::Box runtime = p.tile(t);
          hd::TileBox compiler = hd::tileOfTask(shape, degrees, t);
          for (int d = 0; d < rank; ++d) {
            EXPECT_EQ(runtime.lo[d], compiler[d].lo) << "task " << t;
            EXPECT_EQ(runtime.hi[d], compiler[d].hi) << "task " << t;
          }
          ++checked;
        }
        int d = 0;
        while (d < rank && degrees[d] == shape[d])
          degrees[d++] = 1;
        if (d == rank)
          break;
        ++degrees[d];
      }
    }
  EXPECT_GT(checked, 10000);
}
