//===- Partition.h - a tensor's block partition into tiles ------*- C++ -*-===//
//
// The runtime's side of the tile-split rule: a configuration splits each
// dimension into blocks whose sizes differ by at most one, larger ones
// first, and task t owns the tile at row-major position t of the degree
// grid. The compiler's twin is hd::tileOfTask (include/hd/Tiling/TileBox.h);
// unittests/Runtime/PartitionTest.cpp checks that the two agree.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_COMMON_PARTITION_H
#define HDRT_COMMON_PARTITION_H

#include "hdrt/Box.h"

#include <cstdint>

namespace hdrt {

/// A block partition of a tensor: degrees per dim, tasks in row-major order.
struct Partition {
  int rank = 0;
  int64_t shape[4] = {1, 1, 1, 1};
  int64_t degrees[4] = {1, 1, 1, 1};

  int64_t tasks() const;
  /// The box task `task` owns: tiles differ by at most one along a dim,
  /// larger ones first (17 in 2 is 9 + 8).
  Box tile(int64_t task) const;
  /// The block index of `task` along `dim`.
  int64_t blockOf(int64_t task, int dim) const;
};

} // namespace hdrt

#endif // HDRT_COMMON_PARTITION_H
