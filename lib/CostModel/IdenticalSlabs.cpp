//===- IdenticalSlabs.cpp - the devices of a transfer that mirror others --===//
//
// Where a transfer falls into slabs of devices that move data only among
// themselves, in the same pattern, the peaks need only the first slab: on a
// large machine this divides the separable passes' work by the slab count
// (identicalSlabs in Transfer.h says when that holds).
//
//===----------------------------------------------------------------------===//

#include "hd/CostModel/Transfer.h"

#include <algorithm>
#include <numeric>

namespace hd {

int64_t identicalSlabs(const ProducerGrid &grid, const ConsumerTiles &tiles,
                       int64_t perNode) {
  int64_t P = grid.config.tasks(), Q = int64_t(tiles.boxes.size());
  const std::vector<int64_t> &pd = grid.config.degrees, &cd = tiles.degrees;
  if (!tiles.separable || P != Q || tiles.coordOf.empty())
    return 1;
  // Dims that neither grid splits leave the row-major task order as it
  // is: the slabs come from the outermost dim that either splits (the
  // batch, or the channels of a layer that splits no batch).
  size_t k = 0;
  while (k < pd.size() && pd[k] == 1 &&
         (tiles.coordOf[k] < 0 || cd[tiles.coordOf[k]] == 1))
    ++k;
  if (k == pd.size() || tiles.coordOf[k] < 0)
    return 1;
  int j = tiles.coordOf[k];
  if (std::any_of(cd.begin(), cd.begin() + j, [](int64_t d) { return d > 1; }))
    return 1;
  int64_t size = grid.shape[k], pn = pd[k], qn = cd[j];
  if (size % pn != 0 || size % qn != 0 || int64_t(tiles.ranges[k].size()) != qn)
    return 1;
  for (int64_t v = 0; v < qn; ++v)
    if (tiles.ranges[k][v] != blockPart(size, qn, v))
      return 1;
  int64_t slabs = std::gcd(pn, qn);
  while (slabs > 1 &&
         (pn % slabs != 0 || qn % slabs != 0 ||
          ((P / slabs) % perNode != 0 && perNode % (P / slabs) != 0)))
    --slabs;
  return slabs;
}

} // namespace hd
