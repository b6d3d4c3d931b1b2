//===- TileGrid.h - a split's tiles by dimension and by node ----*- C++ -*-===//
//
// A configuration splits each dimension into block parts, and its tasks are
// the points of the grid of those parts, in row-major order. Transfers need
// the grid by dimension rather than tile by tile: a task's tile is one part
// per dimension, so what it holds of a box is a product of per-dimension
// intersections. Tasks run on devices 0, 1, ... in task order, so a node's
// tasks are a run of consecutive tasks; such a run covers a few sub-boxes of
// the grid, which is what a node holds together.
//
//===----------------------------------------------------------------------===//

#ifndef HD_TILING_TILEGRID_H
#define HD_TILING_TILEGRID_H

#include "hd/Tiling/ParallelConfig.h"
#include "hd/Tiling/TileBox.h"

#include <cstdint>
#include <vector>

namespace hd {

/// The tiles of `shape` under `config`, by dimension.
struct TileGrid {
  std::vector<int64_t> shape;
  ParallelConfig config;
  std::vector<Range> parts;        // parts of dim d start at partOffset[d]
  std::vector<int64_t> partOffset; // rank + 1 entries
  /// Per dim d and task p, at [d * tasks + p]: its grid coordinate.
  std::vector<int64_t> coords;
};

TileGrid tileGrid(const std::vector<int64_t> &shape,
                  const ParallelConfig &config);

/// Calls fn(box) for the sub-boxes of a grid (row-major over `degrees`)
/// whose union is the task range [lo, hi): at most two per dimension.
/// box[d] is a range of coordinates of dimension d. A template, so that
/// `fn` inlines: the cost model's bounds call it for every configuration of
/// a table's rows.
template <typename Fn>
void forEachSubBox(const std::vector<int64_t> &degrees, int64_t lo, int64_t hi,
                   Fn &&fn) {
  size_t rank = degrees.size();
  int64_t stride[kMaxRank + 1];
  stride[rank] = 1;
  for (size_t d = rank; d-- > 0;)
    stride[d] = stride[d + 1] * degrees[d];
  Range box[kMaxRank];
  // [lo, hi) lies within one block of dim d - 1, whose coordinates up to
  // d - 1 are already in `box`; `base` is that block's first task.
  auto split = [&](auto &self, size_t d, int64_t base, int64_t lo,
                   int64_t hi) -> void {
    if (lo >= hi)
      return;
    if (d == rank) {
      fn(box);
      return;
    }
    int64_t s = stride[d + 1];
    int64_t a = (lo - base) / s, b = (hi - base) / s;
    int64_t aRest = (lo - base) % s, bRest = (hi - base) % s;
    if (a == b) {
      box[d] = {a, a + 1};
      return self(self, d + 1, base + a * s, lo, hi);
    }
    if (aRest > 0) {
      box[d] = {a, a + 1};
      self(self, d + 1, base + a * s, lo, base + (a + 1) * s);
      ++a;
    }
    if (a < b) {
      box[d] = {a, b};
      for (size_t e = d + 1; e < rank; ++e)
        box[e] = {0, degrees[e]};
      fn(box);
    }
    if (bRest > 0) {
      box[d] = {b, b + 1};
      self(self, d + 1, base + b * s, base + b * s, hi);
    }
  };
  split(split, 0, 0, lo, hi);
}

/// The sub-boxes of a grid (coordinate ranges, degrees.size() each) that
/// each node's tasks form (consecutive runs of `perNode` in row-major
/// order): node n's are [offset[n], offset[n + 1]); at most `slots` a
/// node, over `devices` (whole nodes).
struct NodeSubBoxes {
  std::vector<int64_t> offset{0};
  std::vector<Range> boxes;
  int64_t slots = 0, devices = 0;
};
NodeSubBoxes nodeSubBoxes(const std::vector<int64_t> &degrees, int64_t perNode);

} // namespace hd

#endif // HD_TILING_TILEGRID_H
