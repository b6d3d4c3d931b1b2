//===- TransferBounds.cpp - lower bounds on a transfer's time -------------===//
//
// The grouped search rules out configurations it has not priced by bounds
// that cost far less than the exact transfer: one from sizes alone, where
// the two sides' tiles do not line up (misalignmentBoundMs, over each
// side's extents), and one from the devices a smaller group leaves idle
// (transferLowerBoundMs). Both must never exceed transferCost, which the
// unit tests check over every layer kind's boxes.
//
//===----------------------------------------------------------------------===//

#include "hd/CostModel/CostModel.h"

#include <algorithm>
#include <cmath>

namespace hd {

ProducerExtents producerExtents(const ProducerGrid &grid,
                                int64_t devicesPerNode) {
  size_t rank = grid.shape.size();
  ProducerExtents e{grid.config.tasks(), std::vector<int64_t>(rank, 0),
                    std::vector<int64_t>(rank, 0), grid.elementBytes};
  for (size_t d = 0; d < rank; ++d)
    for (int64_t i = grid.partOffset[d]; i < grid.partOffset[d + 1]; ++i)
      e.part[d] = std::max(e.part[d], grid.parts[i].size());
  // A node's tasks are consecutive in row-major order; where they form one
  // sub-box of the grid, what they hold is one box of the tensor.
  std::vector<int64_t> mine(rank);
  for (int64_t lo = 0; lo < e.tasks; lo += devicesPerNode) {
    int boxes = 0;
    forEachSubBox(
        grid.config.degrees, lo, std::min(e.tasks, lo + devicesPerNode),
        [&](const Range *box) {
          ++boxes;
          for (size_t d = 0; d < rank; ++d)
            mine[d] = grid.parts[grid.partOffset[d] + box[d].hi - 1].hi -
                      grid.parts[grid.partOffset[d] + box[d].lo].lo;
        });
    if (boxes != 1)
      return {e.tasks, e.part, grid.shape, grid.elementBytes};
    for (size_t d = 0; d < rank; ++d)
      e.node[d] = std::max(e.node[d], mine[d]);
  }
  return e;
}

ConsumerExtents consumerExtents(const std::vector<TileBox> &boxes) {
  ConsumerExtents e{int64_t(boxes.size()), {}, {}};
  if (boxes.empty())
    return e;
  unsigned rank = boxes.front().rank();
  e.least.assign(rank, INT64_MAX);
  const TileBox *most = &boxes.front();
  for (const TileBox &b : boxes) {
    if (b.volume() > most->volume())
      most = &b;
    for (unsigned d = 0; d < rank; ++d)
      e.least[d] = std::min(e.least[d], b[d].size());
  }
  for (unsigned d = 0; d < rank; ++d)
    e.largest.push_back((*most)[d].size());
  return e;
}

double CostModel::transferLowerBoundMs(const std::vector<double> &bytes,
                                       int64_t holders, int64_t leastLargestBox,
                                       double elementBytes) const {
  auto ms = [](double b, double gbps) { return b / (gbps * 1e6); };
  int64_t perNode = machine.devicesPerNode;
  double worst = 0;
  bool moves = false;
  for (int64_t first = holders / perNode * perNode;
       first < int64_t(bytes.size()); first += perNode) {
    int64_t end = std::min<int64_t>(first + perNode, bytes.size());
    double nodeBytes = 0;
    for (int64_t t = std::max(first, holders); t < end; ++t) {
      moves |= bytes[t] > 0;
      nodeBytes += bytes[t];
      if (first < holders)
        // Some partners share t's node. With none elsewhere (node 0) all
        // goes over t's port; otherwise t's port and its node's network
        // interface share it, and the busier takes at least this long.
        worst =
            std::max(worst, first == 0 ? ms(bytes[t], machine.deviceGbps)
                                       : bytes[t] / ((machine.deviceGbps +
                                                      machine.interNodeGbps) *
                                                     1e6));
    }
    // A node without partners moves everything over its network interface.
    if (first >= holders)
      worst = std::max(worst, ms(nodeBytes, machine.interNodeGbps));
  }
  return moves ? 2 * (worst + machine.latencyUs * 1e-3) +
                     transferCopyMs(leastLargestBox, 0, elementBytes)
               : 0;
}

double CostModel::misalignmentBoundMs(const ProducerExtents &producer,
                                      const ConsumerExtents &consumer) const {
  if (consumer.largest.empty())
    return 0;
  // Volume less the most of it one box of `cap` can hold: never rises as
  // the box shrinks, so the smallest box bounds every task's.
  auto beyond = [](const std::vector<int64_t> &box,
                   const std::vector<int64_t> &cap) {
    int64_t all = 1, kept = 1;
    for (size_t d = 0; d < box.size(); ++d) {
      all *= box[d];
      kept *= std::min(box[d], cap[d]);
    }
    return all - kept;
  };
  auto ms = [&](double elements, double gbps) {
    return producer.elementBytes * elements / (gbps * 1e6);
  };
  // The task that reads most receives all but its own part's share, over
  // its port and its node's interface together.
  int64_t in = beyond(consumer.largest, producer.part);
  int64_t perNode = machine.devicesPerNode;
  bool oneNode = std::max(producer.tasks, consumer.tasks) <= perNode;
  double worst =
      ms(double(in), oneNode ? machine.deviceGbps
                             : machine.deviceGbps + machine.interNodeGbps);
  // The first node's consumer tasks receive from other nodes all that its
  // producer tasks do not hold.
  if (!oneNode)
    worst = std::max(worst, ms(double(std::min(perNode, consumer.tasks) *
                                      beyond(consumer.least, producer.node)),
                               machine.interNodeGbps));
  // Its box spans at least this many producer parts, one task each.
  // (A double quotient of integers is exact where it is one: no integer
  // division in this loop, which runs for every pair of configurations.)
  double spans = 1;
  for (size_t d = 0; d < consumer.largest.size(); ++d)
    spans *= std::ceil(double(consumer.largest[d]) / double(producer.part[d]));
  double messages = std::max(spans - 1, in > 0 ? 1.0 : 0.0);
  double bound = 2 * (worst + messages * machine.latencyUs * 1e-3);
  // Something moves, so the runtime assembles every box, the largest
  // included (transferCost).
  if (in > 0) {
    int64_t largest = 1;
    for (int64_t e : consumer.largest)
      largest *= e;
    bound += transferCopyMs(largest, 0, producer.elementBytes);
  }
  return bound;
}

} // namespace hd
