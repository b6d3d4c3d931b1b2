//===- StrategyCost.cpp - the predicted step of a whole strategy ----------===//
//
// The report's numbers: every layer's t_c and t_s, the transfers into it,
// each device's memory, and the sync the step waits for once gradient sums
// run beside the backward pass. The search minimizes the paper's sum of
// the three terms over its tables instead; these are what a strategy is
// predicted to take.
//
//===----------------------------------------------------------------------===//

#include "hd/CostModel/CostModel.h"

#include <algorithm>
#include <optional>

namespace hd {

StrategyCost evaluateStrategy(const CostModel &model, const LayerGraph &graph,
                              const std::vector<ParallelConfig> &strategy) {
  StrategyCost total;
  int64_t devices = 1;
  for (const ParallelConfig &c : strategy)
    devices = std::max(devices, c.tasks());
  std::vector<int64_t> deviceMem(devices, 0);
  std::vector<int> consumers(graph.layers.size(), 0);
  for (const Layer &layer : graph.layers)
    for (const LayerInput &in : layer.inputs)
      if (in.producer >= 0)
        ++consumers[in.producer];
  for (size_t l = 0; l < graph.layers.size(); ++l) {
    const Layer &layer = graph.layers[l];
    const ParallelConfig &config = strategy[l];
    LayerReport report;
    report.cost = model.layerCost(layer, config);
    // The input copies each task keeps (inputCopies).
    std::vector<int64_t> inputBytes(config.tasks(), 0);
    for (unsigned i = 0; i < layer.inputs.size(); ++i) {
      ConsumerTiles tiles = consumerTiles(layer, i, config);
      int p = layer.inputs[i].producer;
      std::optional<ProducerGrid> grid;
      if (p >= 0)
        grid = producerGrid(graph.layers[p], strategy[p]);
      int copies = CostModel::inputCopies(grid ? &*grid : nullptr, tiles,
                                          p >= 0 && consumers[p] == 1);
      for (int64_t t = 0; t < config.tasks(); ++t)
        inputBytes[t] += copies * int64_t(bytesOf(layer.inputs[i].type)) *
                         tiles.boxes[t].volume();
      if (p < 0)
        continue;
      TransferCost t = model.transferCost(*grid, tiles);
      report.inTransferMs += t.ms;
      report.inTransferBytes += t.bytes;
    }
    for (int64_t t = 0; t < config.tasks(); ++t) {
      int64_t bytes = model.taskMemoryBytes(layer, config, t, inputBytes[t]);
      deviceMem[t] += bytes;
      report.memBytes = std::max(report.memBytes, bytes);
    }
    total.computeMs += report.cost.computeMs;
    total.syncMs += report.cost.syncMs;
    total.transferMs += report.inTransferMs;
    total.commBytes += report.inTransferBytes + report.cost.syncBytes;
    total.layers.push_back(report);
  }
  total.peakMemBytes = *std::max_element(deviceMem.begin(), deviceMem.end());
  total.exposedSyncMs = total.syncMs;
  if (model.getMachine().syncOverlap) {
    std::vector<LayerCost> costs;
    std::vector<double> transfers;
    for (const LayerReport &r : total.layers) {
      costs.push_back(r.cost);
      transfers.push_back(r.inTransferMs);
    }
    total.exposedSyncMs = exposedSyncMs(costs, transfers);
  }
  return total;
}

double exposedSyncMs(const std::vector<LayerCost> &layers,
                     const std::vector<double> &inTransferMs) {
  size_t n = layers.size();
  double t = 0; // the compute timeline
  for (size_t l = 0; l < n; ++l)
    t += layers[l].computeMs - layers[l].backwardMs - layers[l].updateMs +
         inTransferMs[l] / 2;
  // Backward in reverse program order: a layer's sum starts once its
  // backward and its transfers back are done and the sums before it are.
  std::vector<double> summed(n, 0); // when each layer's sum ends
  double channel = 0;
  for (size_t l = n; l-- > 0;) {
    t += layers[l].backwardMs + inTransferMs[l] / 2;
    if (layers[l].syncMs > 0) {
      channel = std::max(channel, t) + layers[l].syncMs;
      summed[l] = channel;
    }
  }
  // The updates in the same order, each after its own sum.
  double end = t, instant = t;
  for (size_t l = n; l-- > 0;) {
    end = std::max(end, summed[l]) + layers[l].updateMs;
    instant += layers[l].updateMs;
  }
  return end - instant;
}

} // namespace hd
