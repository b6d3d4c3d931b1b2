//===- TileGrid.cpp - a split's tiles by dimension and by node ------------===//
//
// The per-dimension form of a split (TileGrid.h), built once per
// configuration so that transfers over it read parts and coordinates rather
// than dividing them out of task indices.
//
//===----------------------------------------------------------------------===//

#include "hd/Tiling/TileGrid.h"

#include <algorithm>

namespace hd {

TileGrid tileGrid(const std::vector<int64_t> &shape,
                  const ParallelConfig &config) {
  TileGrid grid{shape, config, {}, {0}, {}};
  const std::vector<int64_t> &pd = config.degrees;
  size_t rank = shape.size();
  for (size_t d = 0; d < rank; ++d) {
    grid.partOffset.push_back(grid.partOffset.back() + pd[d]);
    for (int64_t i = 0; i < pd[d]; ++i)
      grid.parts.push_back(blockPart(shape[d], pd[d], i));
  }
  int64_t P = config.tasks();
  grid.coords.resize(P * rank);
  forEachTile(shape, pd, [&](int64_t p, const int64_t *coord, const TileBox &) {
    for (size_t d = 0; d < rank; ++d)
      grid.coords[d * P + p] = coord[d];
  });
  return grid;
}

NodeSubBoxes nodeSubBoxes(const std::vector<int64_t> &degrees,
                          int64_t perNode) {
  int64_t tasks = 1;
  for (int64_t d : degrees)
    tasks *= d;
  size_t rank = degrees.size();
  NodeSubBoxes n;
  for (int64_t first = 0; first < tasks; first += perNode) {
    forEachSubBox(degrees, first, std::min(tasks, first + perNode),
                  [&](const Range *box) {
                    n.boxes.insert(n.boxes.end(), box, box + rank);
                  });
    n.offset.push_back(n.boxes.size() / rank);
    n.slots = std::max(n.slots, n.offset.back() - n.offset.end()[-2]);
    n.devices += perNode;
  }
  return n;
}

} // namespace hd
