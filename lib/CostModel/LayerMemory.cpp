//===- LayerMemory.cpp - the bytes a layer's tasks hold -------------------===//
//
// What the runtime allocates on a device for one task of a layer: its
// parameters with their gradients and momentum, its output tile and that
// tile's gradient, its forward's workspace, and copies of its input boxes.
// The search bounds each device's peak with a sum of these per layer and
// edge (layerMemoryBytes, inputCopyBytes); evaluateStrategy sums the exact
// per-device bytes.
//
//===----------------------------------------------------------------------===//

#include "hd/CostModel/CostModel.h"

#include <algorithm>

namespace hd {

int64_t CostModel::taskMemoryBytes(const Layer &layer,
                                   const ParallelConfig &config, int64_t task,
                                   int64_t inputBytes) const {
  TileBox tile = tileOfTask(layer.shape, config.degrees, task);
  int64_t c = config.degrees.size() > 1 ? config.degrees[1] : 1;
  int64_t cIndex = 0;
  if (config.degrees.size() > 1) {
    int64_t inner = 1;
    for (size_t i = 2; i < config.degrees.size(); ++i)
      inner *= config.degrees[i];
    cIndex = (task / inner) % c;
  }
  int64_t shard = parameterShard(layer, c, cIndex);
  // fp32 parameters and momentum, gradients in their type, and a copy of
  // the parameters in the compute type where that is not fp32; the
  // activation kept for backward and its gradient (the loss keeps none),
  // in the output type, and what else the forward keeps for backward; the
  // input copies.
  int64_t kept = layer.kind == CostKind::Loss ? 0 : tile.volume();
  return (8 + bytesOf(layer.gradientType) +
          weightCopyBytes(layer.numerics.compute)) *
             shard +
         2 * bytesOf(layer.numerics.output) * kept +
         layer.workspaceBytesPerElement * kept + inputBytes;
}

int CostModel::inputCopies(const ProducerGrid *producer,
                           const ConsumerTiles &tiles, bool onlyReader) {
  if (!producer)
    return 1;
  if (!readsOwnDeviceTile(*producer, tiles))
    return 2;
  return onlyReader ? 0 : 1;
}

int64_t CostModel::layerMemoryBytes(const Layer &layer,
                                    const ParallelConfig &config) const {
  std::vector<int64_t> images(config.tasks(), 0);
  for (unsigned i = 0; i < layer.inputs.size(); ++i) {
    if (layer.inputs[i].producer >= 0)
      continue;
    ConsumerTiles tiles = consumerTiles(layer, i, config);
    for (int64_t t = 0; t < config.tasks(); ++t)
      images[t] += inputCopies(nullptr, tiles, false) *
                   int64_t(bytesOf(layer.inputs[i].type)) *
                   tiles.boxes[t].volume();
  }
  int64_t most = 0;
  for (int64_t t = 0; t < config.tasks(); ++t)
    most = std::max(most, taskMemoryBytes(layer, config, t, images[t]));
  return most;
}

int64_t CostModel::inputCopyBytes(const ProducerGrid &producer,
                                  const ConsumerTiles &tiles, bool onlyReader) {
  int copies = inputCopies(&producer, tiles, onlyReader);
  int64_t most = 0;
  for (const TileBox &box : tiles.boxes)
    most = std::max(most, box.volume());
  return copies * int64_t(producer.elementBytes) * most;
}

} // namespace hd
