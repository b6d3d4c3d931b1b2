//===- TransferPlan.h - who sends what to whom between layers ---*- C++ -*-===//
//
// The geometry of a transfer and the plan the runtime executes: which box of
// the producer's tensor each consumer task reads, which producer tasks hold
// parts of it, and so which box every producer task sends every consumer
// task. --hd-insert-transfers writes this plan into the IR, and the cost
// model prices the same overlaps (CostModel/Transfer.h), so the two cannot
// disagree on what moves.
//
//===----------------------------------------------------------------------===//

#ifndef HD_TILING_TRANSFERPLAN_H
#define HD_TILING_TRANSFERPLAN_H

#include "hd/Tiling/TileGrid.h"

#include <functional>
#include <vector>

namespace hd {

/// The input boxes that every task of a consumer reads from one operand.
struct ConsumerBoxes {
  std::vector<int64_t> degrees; // the consumer's configuration
  std::vector<TileBox> boxes;   // per consumer task
  int64_t largestBox = 0;       // the most elements of one task's box
  int64_t totalBoxes = 0;       // the elements of every task's box
};

/// The boxes of a consumer whose output is `shape`, split by `config`, where
/// `inputBox` gives the box an output tile reads.
ConsumerBoxes
consumerBoxes(const std::vector<int64_t> &shape, const ParallelConfig &config,
              const std::function<TileBox(const TileBox &)> &inputBox);

/// One remote movement of elements between two tasks' devices.
struct Flow {
  int64_t src, dst;
  int64_t elements;
};

/// Calls flow(Flow) for every (producer task, consumer task) pair on
/// different devices whose tile and box overlap: each pair once, by consumer
/// task, then producer task. Inline: it is the inner loop of the plan and of
/// the cost model's enumeration of loads.
template <typename FlowFn>
void forEachFlow(const std::vector<int64_t> &producerShape,
                 const ParallelConfig &producer, const ConsumerBoxes &consumer,
                 FlowFn &&flow) {
  const std::vector<int64_t> &pd = producer.degrees;
  const std::vector<TileBox> &boxes = consumer.boxes;
  size_t rank = producerShape.size();
  int64_t first[kMaxRank], count[kMaxRank], pick[kMaxRank];
  for (int64_t q = 0; q < static_cast<int64_t>(boxes.size()); ++q) {
    const TileBox &box = boxes[q];
    if (box.empty())
      continue;
    for (size_t d = 0; d < rank; ++d) {
      first[d] = blockPartOf(producerShape[d], pd[d], box[d].lo);
      count[d] =
          blockPartOf(producerShape[d], pd[d], box[d].hi - 1) - first[d] + 1;
      pick[d] = 0;
    }
    // Every combination of overlapping parts is one producer task.
    while (true) {
      int64_t task = 0, elements = 1;
      for (size_t d = 0; d < rank; ++d) {
        int64_t part = first[d] + pick[d];
        task = task * pd[d] + part;
        elements *=
            intersect(blockPart(producerShape[d], pd[d], part), box[d]).size();
      }
      if (task != q && elements > 0)
        flow(Flow{task, q, elements});
      size_t d = rank;
      while (d-- > 0) {
        if (++pick[d] < count[d])
          break;
        pick[d] = 0;
      }
      if (d == size_t(-1))
        break;
    }
  }
}

/// One box a producer task sends a consumer task (global coordinates).
struct BoxMove {
  int64_t src, dst;
  TileBox box;
};

/// The static plan of a transfer: every box that must move, ordered by
/// consumer task, then producer task.
std::vector<BoxMove> transferPlan(const TileGrid &producer,
                                  const ConsumerBoxes &consumer);

/// True when every consumer task reads exactly the tile its own device
/// holds: the layers' tiles agree and no transfer is needed.
bool readsOwnDeviceTile(const TileGrid &producer,
                        const ConsumerBoxes &consumer);

} // namespace hd

#endif // HD_TILING_TRANSFERPLAN_H
