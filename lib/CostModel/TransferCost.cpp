//===- TransferCost.cpp - t_x: the time of a transfer ---------------------===//
//
// A transfer takes as long as its busiest link or port (its peaks,
// Transfer.h) plus a latency per message, forward and backward, plus the
// runtime's copies wherever a consumer box is not its device's own tile:
// the runtime assembles such a box even when nothing in it is remote.
//
//===----------------------------------------------------------------------===//

#include "hd/CostModel/CostModel.h"

#include <algorithm>
#include <functional>
#include <numeric>

namespace hd {

TransferCost CostModel::transferCost(const ProducerGrid &producer,
                                     const ConsumerTiles &tiles) const {
  TransferPeaks peaks = transferPeaks(machine, producer, tiles);
  TransferCost cost;
  // A consumer box that is not its device's own tile is assembled by the
  // runtime, remote parts or not: transferCopyMs. With nothing remote,
  // every box lies in its device's tile, and is that tile when the boxes
  // add up to the whole tensor (readsOwnDeviceTile, in O(1)).
  if (peaks.elements == 0 &&
      int64_t(tiles.boxes.size()) == producer.config.tasks() &&
      tiles.totalBoxes == std::accumulate(producer.shape.begin(),
                                          producer.shape.end(), int64_t(1),
                                          std::multiplies<int64_t>()))
    return cost;
  cost.ms = transferCopyMs(tiles.largestBox, peaks.maxPortBytes,
                           producer.elementBytes);
  if (peaks.elements == 0)
    return cost;
  auto ms = [](double bytes, double gbps) { return bytes / (gbps * 1e6); };
  double worst = std::max({ms(peaks.maxPairBytes, machine.intraNodeGbps),
                           ms(peaks.maxPortBytes, machine.deviceGbps),
                           ms(peaks.maxNicBytes, machine.interNodeGbps)});
  // Backward sends the same boxes' gradients the other way; the links are
  // symmetric, so it takes as long as forward.
  cost.ms += 2 * (worst + peaks.maxMessages * machine.latencyUs * 1e-3);
  cost.bytes = 2 * producer.elementBytes * peaks.elements;
  return cost;
}

double CostModel::transferCopyBytes(int64_t boxElements, double sentBytes,
                                    double elementBytes) {
  // Forward writes the whole box once, reading each element from the
  // device's own tile or a receive buffer (2x the box), and packs what it
  // sends (2x). Backward adds the box's gradient into the tiles it came
  // from (read both, write one: 3x) and packs what goes back (2x).
  return 5 * elementBytes * double(boxElements) + 4 * sentBytes;
}

double CostModel::transferCopyMs(int64_t boxElements, double sentBytes,
                                 double elementBytes) const {
  double gbps = runtimeCopyGbps();
  return gbps > 0 ? transferCopyBytes(boxElements, sentBytes, elementBytes) /
                        (gbps * 1e6)
                  : 0;
}

TransferCost
CostModel::transferCost(const Layer &producer,
                        const ParallelConfig &producerConfig,
                        const Layer &consumer, unsigned operand,
                        const ParallelConfig &consumerConfig) const {
  return transferCost(
      producerGrid(producer, producerConfig, machine.devicesPerNode),
      consumerTiles(consumer, operand, consumerConfig, machine.devicesPerNode));
}

} // namespace hd
