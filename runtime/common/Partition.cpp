//===- Partition.cpp - a tensor's block partition into tiles --------------===//

#include "hdrt/common/Partition.h"

#include <algorithm>

namespace hdrt {

int64_t Partition::tasks() const {
  int64_t t = 1;
  for (int d = 0; d < rank; ++d)
    t *= degrees[d];
  return t;
}

int64_t Partition::blockOf(int64_t task, int dim) const {
  for (int d = rank - 1; d > dim; --d)
    task /= degrees[d];
  return task % degrees[dim];
}

Box Partition::tile(int64_t task) const {
  Box b;
  b.rank = rank;
  for (int d = 0; d < rank; ++d) {
    int64_t i = blockOf(task, d), k = degrees[d];
    int64_t base = shape[d] / k, extra = shape[d] % k;
    b.lo[d] = i * base + std::min(i, extra);
    b.hi[d] = b.lo[d] + base + (i < extra ? 1 : 0);
  }
  return b;
}

} // namespace hdrt
