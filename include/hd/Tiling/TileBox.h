//===- TileBox.h - boxes of tensors and block partitions -------*- C++ -*-===//
//
// Plain C++ (no MLIR): the search and the cost model use it too.
//
// A tile is a box of a tensor: one half-open range per dimension. A layer
// configuration splits its output with a block distribution per dimension;
// task t owns the tile at row-major position t of the degree grid.
//
//===----------------------------------------------------------------------===//

#ifndef HD_TILING_TILEBOX_H
#define HD_TILING_TILEBOX_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace hd {

/// The largest tensor rank hd partitions (N x C x H x W).
constexpr unsigned kMaxRank = 4;

/// Half-open interval [lo, hi). Empty when hi <= lo.
struct Range {
  int64_t lo = 0;
  int64_t hi = 0;

  int64_t size() const { return hi > lo ? hi - lo : 0; }
  bool empty() const { return hi <= lo; }
  bool operator==(const Range &o) const {
    return (empty() && o.empty()) || (lo == o.lo && hi == o.hi);
  }
  bool operator!=(const Range &o) const { return !(*this == o); }
};

inline Range intersect(Range a, Range b) {
  Range r{a.lo > b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi};
  if (r.hi < r.lo)
    r.hi = r.lo;
  return r;
}

/// Part `index` of [0, size) split into `degree` blocks. The first
/// size % degree parts are one larger, so 17 split in 2 gives 9 + 8.
/// Requires 1 <= degree and 0 <= index < degree.
inline Range blockPart(int64_t size, int64_t degree, int64_t index) {
  int64_t base = size / degree, extra = size % degree;
  int64_t lo = index * base + (index < extra ? index : extra);
  return {lo, lo + base + (index < extra ? 1 : 0)};
}

/// The index of the block part of [0, size) split in `degree` that holds
/// element `e`.
inline int64_t blockPartOf(int64_t size, int64_t degree, int64_t e) {
  int64_t base = size / degree, extra = size % degree;
  int64_t bigSpan = extra * (base + 1);
  return e < bigSpan ? e / (base + 1) : extra + (e - bigSpan) / base;
}

/// A box of a tensor of rank <= kMaxRank.
class TileBox {
public:
  TileBox() = default;
  /// The whole tensor of the given shape.
  static TileBox whole(const std::vector<int64_t> &shape);
  explicit TileBox(std::vector<Range> ranges);

  unsigned rank() const { return rank_; }
  Range &operator[](unsigned dim) { return ranges_[dim]; }
  const Range &operator[](unsigned dim) const { return ranges_[dim]; }

  /// Number of elements; 0 when any range is empty.
  int64_t volume() const {
    int64_t v = 1;
    for (unsigned i = 0; i < rank_; ++i)
      v *= ranges_[i].size();
    return v;
  }
  bool empty() const { return volume() == 0; }
  bool operator==(const TileBox &o) const;
  bool operator!=(const TileBox &o) const { return !(*this == o); }
  std::string str() const;

private:
  std::array<Range, kMaxRank> ranges_{};
  unsigned rank_ = 0;
};

/// Intersection of two boxes of the same rank.
TileBox intersect(const TileBox &a, const TileBox &b);

/// Product of the dims; the element count of a tensor.
int64_t numElements(const std::vector<int64_t> &shape);

/// The tile of `task` when `shape` is split by `degrees` (one per dim, same
/// rank as the shape), tasks in row-major order of the degree grid.
TileBox tileOfTask(const std::vector<int64_t> &shape,
                   const std::vector<int64_t> &degrees, int64_t task);

/// Calls fn(task, coord, tile) for every task of the split in task order,
/// with its grid coordinates (one per dim) and the tile tileOfTask gives it,
/// stepping the coordinates from the last task's rather than dividing them
/// out of its index.
template <typename Fn>
void forEachTile(const std::vector<int64_t> &shape,
                 const std::vector<int64_t> &degrees, Fn fn) {
  size_t rank = degrees.size();
  std::vector<std::vector<Range>> parts(rank);
  int64_t tasks = 1;
  for (size_t d = 0; d < rank; ++d) {
    for (int64_t i = 0; i < degrees[d]; ++i)
      parts[d].push_back(blockPart(shape[d], degrees[d], i));
    tasks *= degrees[d];
  }
  std::vector<int64_t> coord(rank, 0);
  TileBox tile = TileBox::whole(shape);
  for (int64_t task = 0; task < tasks; ++task) {
    for (size_t d = 0; d < rank; ++d)
      tile[d] = parts[d][coord[d]];
    fn(task, static_cast<const int64_t *>(coord.data()),
       static_cast<const TileBox &>(tile));
    for (size_t d = rank; d-- > 0 && ++coord[d] == degrees[d];)
      coord[d] = 0;
  }
}

/// The largest tile of the split: what the slowest task computes.
TileBox largestTile(const std::vector<int64_t> &shape,
                    const std::vector<int64_t> &degrees);

} // namespace hd

#endif // HD_TILING_TILEBOX_H
