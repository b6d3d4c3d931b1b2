//===- TransferPlan.cpp - who sends what to whom between layers -----------===//
//
// The consumer's boxes and the plan built on them (TransferPlan.h). The plan
// is what the runtime executes, so it is computed from the exact boxes, one
// overlap at a time, never from the cost model's summaries of them.
//
//===----------------------------------------------------------------------===//

#include "hd/Tiling/TransferPlan.h"

#include <algorithm>

namespace hd {

ConsumerBoxes
consumerBoxes(const std::vector<int64_t> &shape, const ParallelConfig &config,
              const std::function<TileBox(const TileBox &)> &inputBox) {
  ConsumerBoxes consumer;
  consumer.degrees = config.degrees;
  consumer.boxes.reserve(config.tasks());
  forEachTile(shape, config.degrees,
              [&](int64_t, const int64_t *, const TileBox &tile) {
                consumer.boxes.push_back(inputBox(tile));
                consumer.largestBox = std::max(consumer.largestBox,
                                               consumer.boxes.back().volume());
                consumer.totalBoxes += consumer.boxes.back().volume();
              });
  return consumer;
}

std::vector<BoxMove> transferPlan(const TileGrid &producer,
                                  const ConsumerBoxes &consumer) {
  std::vector<BoxMove> plan;
  forEachFlow(producer.shape, producer.config, consumer, [&](const Flow &f) {
    TileBox tile = tileOfTask(producer.shape, producer.config.degrees, f.src);
    plan.push_back({f.src, f.dst, intersect(consumer.boxes[f.dst], tile)});
  });
  return plan;
}

bool readsOwnDeviceTile(const TileGrid &producer,
                        const ConsumerBoxes &consumer) {
  if (producer.config.tasks() != static_cast<int64_t>(consumer.boxes.size()))
    return false;
  for (size_t q = 0; q < consumer.boxes.size(); ++q)
    if (consumer.boxes[q] !=
        tileOfTask(producer.shape, producer.config.degrees, q))
      return false;
  return true;
}

} // namespace hd
