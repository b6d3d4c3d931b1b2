//===- CostModel.cpp - time of a layer, a transfer, a sync ----------------===//

#include "hd/CostModel/CostModel.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>

namespace hd {

int64_t parameterShard(const Layer &layer, int64_t degree, int64_t index) {
  int64_t channels = layer.shape.size() > 1 ? layer.shape[1] : 1;
  if (layer.params == 0 || channels < 1)
    return 0;
  return layer.params / channels * blockPart(channels, degree, index).size();
}

namespace {

/// Groups of tasks that combine statistics: those with the same index along
/// every dimension in `perDims` (bit d: dimension d).
std::vector<std::vector<int64_t>> statisticGroups(const ParallelConfig &config,
                                                  unsigned perDims) {
  const std::vector<int64_t> &d = config.degrees;
  std::map<std::vector<int64_t>, std::vector<int64_t>> groups;
  for (int64_t t = 0; t < config.tasks(); ++t) {
    std::vector<int64_t> key;
    int64_t rest = t;
    std::vector<int64_t> index(d.size());
    for (size_t i = d.size(); i-- > 0;) {
      index[i] = rest % d[i];
      rest /= d[i];
    }
    for (size_t i = 0; i < d.size(); ++i)
      if ((perDims >> i) & 1)
        key.push_back(index[i]);
    groups[key].push_back(t);
  }
  std::vector<std::vector<int64_t>> out;
  for (auto &[key, members] : groups)
    out.push_back(std::move(members));
  return out;
}

/// How many of `groups` cross the busiest network interface.
int64_t nicSharing(const Machine &m,
                   const std::vector<std::vector<int64_t>> &groups) {
  std::map<int64_t, int64_t> crossing;
  for (const auto &g : groups) {
    if (g.size() < 2)
      continue;
    int64_t first = m.nodeOf(g.front());
    bool spans = std::any_of(g.begin(), g.end(), [&](int64_t dev) {
      return m.nodeOf(dev) != first;
    });
    if (!spans)
      continue;
    std::vector<int64_t> nodes;
    for (int64_t dev : g)
      nodes.push_back(m.nodeOf(dev));
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    for (int64_t n : nodes)
      ++crossing[n];
  }
  int64_t worst = 1;
  for (auto &[node, count] : crossing)
    worst = std::max(worst, count);
  return worst;
}

/// The time of all-reducing `bytesPerGroup` in every group at once.
double groupsAllReduceMs(const CostModel &model, double bytesPerGroup,
                         const std::vector<std::vector<int64_t>> &groups,
                         double *totalBytes = nullptr) {
  int64_t sharing = nicSharing(model.getMachine(), groups);
  double worst = 0;
  for (const auto &g : groups) {
    worst = std::max(worst, model.allReduceMs(bytesPerGroup, g, sharing));
    if (totalBytes && g.size() > 1)
      *totalBytes += 2.0 * (g.size() - 1) * bytesPerGroup;
  }
  return worst;
}

} // namespace

double CostModel::rooflineMs(double flops, double bytes, bool dense) const {
  double rate = machine.peakGflops * (dense ? machine.efficiency : 1.0);
  return std::max(flops / (rate * 1e6), bytes / (machine.memGbps * 1e6)) +
         machine.launchUs * 1e-3;
}

double CostModel::gradientAccumulationMs(const Layer &layer,
                                         const TileBox &tile) const {
  // The first reader to run backward writes the producer's gradient; each
  // of the others adds its input box into it (read both, write one). Which
  // reader is first is the schedule's, so each pays the average share.
  double bytes = 0;
  for (unsigned i = 0; i < layer.inputs.size(); ++i) {
    const LayerInput &in = layer.inputs[i];
    if (in.producer < 0 || in.producerReaders < 2 || !layer.inputBox)
      continue;
    double others = double(in.producerReaders - 1) / in.producerReaders;
    bytes += others * 3 * kBytesPerElement * layer.inputBox(i, tile).volume();
  }
  double gbps = runtimeCopyGbps();
  return bytes > 0 && gbps > 0 ? bytes / (gbps * 1e6) : 0;
}

double CostModel::runtimeCopyGbps() const {
  return machine.copyGbps > 0 ? machine.copyGbps : machine.memGbps;
}

CostModel::PassTimes
CostModel::analyticPasses(const Layer &layer,
                          const ParallelConfig &config) const {
  if (layer.kind == CostKind::View)
    return {};
  TileBox tile = largestTile(layer.shape, config.degrees);
  double fraction = double(tile.volume()) /
                    double(std::max<int64_t>(1, numElements(layer.shape)));
  double flops = layer.forwardFlops * fraction;
  // Task 0's input box is clipped at the image border; an interior task
  // reads the full halo. Charge the larger.
  std::vector<int64_t> middle;
  for (int64_t d : config.degrees)
    middle.push_back(d / 2);
  int64_t interior = 0;
  for (size_t d = 0; d < middle.size(); ++d)
    interior = interior * config.degrees[d] + middle[d];
  TileBox inner = tileOfTask(layer.shape, config.degrees, interior);
  double in = 0, innerIn = 0;
  bool needsInputGradient = false;
  for (unsigned i = 0; i < layer.inputs.size(); ++i) {
    in += kBytesPerElement * layer.inputBox(i, tile).volume();
    innerIn += kBytesPerElement * layer.inputBox(i, inner).volume();
    needsInputGradient |= layer.inputs[i].producer >= 0;
  }
  in = std::max(in, innerIn);
  double out = kBytesPerElement * tile.volume();
  int64_t c = config.degrees.size() > 1 ? config.degrees[1] : 1;
  double weights = kBytesPerElement * parameterShard(layer, c, 0);
  // The optimizer step of the shard: read the parameters, gradients and
  // momentum, write parameters and momentum.
  double update = weights > 0 ? rooflineMs(3 * weights / kBytesPerElement,
                                           5 * weights, false)
                              : 0;
  switch (layer.kind) {
  case CostKind::Conv:
  case CostKind::Linear: {
    double forward = rooflineMs(flops, in + weights + out, true);
    double ms = forward + rooflineMs(flops, out + in + weights, true);
    if (needsInputGradient)
      ms += rooflineMs(flops, out + weights + in, true); // data
    return {ms + update, ms - forward, update};
  }
  case CostKind::Normalization: {
    // Backward needs about twice the forward work (two reductions).
    double backward = rooflineMs(2 * flops, 2 * out + in, false);
    return {rooflineMs(flops, in + out, false) + backward + update, backward,
            update};
  }
  default: {
    double backward =
        rooflineMs(flops, out + in + (needsInputGradient ? in : 0), false);
    return {rooflineMs(flops, in + out, false) + backward, backward, 0};
  }
  }
}

LayerCost CostModel::layerCost(const Layer &layer,
                               const ParallelConfig &config) const {
  LayerCost cost;
  TileBox tile = largestTile(layer.shape, config.degrees);
  std::vector<int64_t> tileShape;
  for (unsigned d = 0; d < tile.rank(); ++d)
    tileShape.push_back(tile[d].size());
  PassTimes passes;
  if (const ProfileEntry *e = profile.anyEntry(layer.signature, tileShape)) {
    passes = {e->totalMs(), e->bwdMs, e->updateMs};
    cost.measured = true;
  } else {
    passes = analyticPasses(layer, config);
  }
  // The adds of shared input gradients run in backward.
  double accumulation = gradientAccumulationMs(layer, tile);
  cost.computeMs = passes.total + accumulation;
  cost.backwardMs = passes.backward + accumulation;
  cost.updateMs = passes.update;
  double sharing = coreSharing(config);
  for (double *ms : {&cost.computeMs, &cost.backwardMs, &cost.updateMs}) {
    *ms *= sharing;
    if (config.tasks() > 1)
      *ms *= 1 + machine.stragglerFraction;
  }

  // Statistics shared across tasks (batch norm's per-channel sums among the
  // tasks holding the same channels, the softmax's per-sample maximum and
  // sum among those holding the same samples), for the largest tile.
  if (const SharedStatistics &stats = layer.statistics; !stats.empty()) {
    double indices = 1;
    for (size_t d = 0; d < config.degrees.size(); ++d)
      if ((stats.perDims >> d) & 1)
        indices *= blockPart(layer.shape[d], config.degrees[d], 0).size();
    cost.computeMs += stats.rounds *
                      groupsAllReduceMs(*this, stats.bytesPerIndex * indices,
                                        statisticGroups(config, stats.perDims));
  }

  // Gradient sync: parameters split along c, replicated along n, h, w.
  if (layer.params > 0) {
    int64_t c = config.degrees.size() > 1 ? config.degrees[1] : 1;
    double shard = kBytesPerElement * parameterShard(layer, c, 0);
    cost.syncMs =
        groupsAllReduceMs(*this, shard, replicaGroups(config), &cost.syncBytes);
  }
  return cost;
}

/// Processes sharing cores (a CPU host with more processes than cores):
/// layer times are measured with all of a node's processes busy, so each
/// got cores / processes of a core. Tasks are placed on devices 0, 1, ...;
/// the processes without a task in this layer wait in MPI, which yields
/// the core when the host is oversubscribed, so a layer with fewer tasks
/// runs faster by the ratio of the two contentions.
double CostModel::coreSharing(const ParallelConfig &config) const {
  if (machine.coresPerNode <= 0)
    return 1;
  double cores = double(machine.coresPerNode);
  double busy = double(std::min(config.tasks(), machine.devicesPerNode));
  return std::max(1.0, busy / cores) /
         std::max(1.0, double(machine.devicesPerNode) / cores);
}

double CostModel::allReduceMs(double bytes, const std::vector<int64_t> &devices,
                              int64_t sharing) const {
  int64_t r = devices.size();
  if (r < 2 || bytes <= 0)
    return 0;
  int64_t node = machine.nodeOf(devices.front());
  bool oneNode = std::all_of(devices.begin(), devices.end(), [&](int64_t d) {
    return machine.nodeOf(d) == node;
  });
  double ring = 2.0 * (r - 1) / r,
         latencyMs = 2.0 * (r - 1) * machine.latencyUs * 1e-3;
  if (oneNode && !machine.allReduceCurve.empty()) {
    // Measured by size; a small gradient rides in a bucket.
    if (bytes < kGradientBucketBytes)
      return (ring / (curveGbps(kGradientBucketBytes) * 1e6) +
              latencyMs / kGradientBucketBytes) *
             bytes;
    return ring * bytes / (curveGbps(bytes) * 1e6) + latencyMs;
  }
  double gbps = oneNode ? (machine.allReduceGbps > 0 ? machine.allReduceGbps
                                                     : machine.intraNodeGbps)
                        : machine.interNodeGbps / sharing;
  // Reduce-scatter then all-gather: 2(r-1) steps of bytes/r each.
  return ring * bytes / (gbps * 1e6) + latencyMs;
}

double CostModel::curveGbps(double bytes) const {
  const auto &curve = machine.allReduceCurve;
  if (bytes <= curve.front().first)
    return curve.front().second;
  if (bytes >= curve.back().first)
    return curve.back().second;
  auto above = std::upper_bound(
      curve.begin(), curve.end(), bytes,
      [](double b, const std::pair<double, double> &p) { return b < p.first; });
  auto below = above - 1;
  double t =
      std::log(bytes / below->first) / std::log(above->first / below->first);
  return below->second + t * (above->second - below->second);
}

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
  cost.ms = transferCopyMs(tiles.largestBox, peaks.maxPortBytes);
  if (peaks.elements == 0)
    return cost;
  auto ms = [](double bytes, double gbps) { return bytes / (gbps * 1e6); };
  double worst = std::max({ms(peaks.maxPairBytes, machine.intraNodeGbps),
                           ms(peaks.maxPortBytes, machine.deviceGbps),
                           ms(peaks.maxNicBytes, machine.interNodeGbps)});
  // Backward sends the same boxes' gradients the other way; the links are
  // symmetric, so it takes as long as forward.
  cost.ms += 2 * (worst + peaks.maxMessages * machine.latencyUs * 1e-3);
  cost.bytes = 2 * kBytesPerElement * peaks.elements;
  return cost;
}

double CostModel::transferCopyBytes(int64_t boxElements, double sentBytes) {
  // Forward writes the whole box once, reading each element from the
  // device's own tile or a receive buffer (2x the box), and packs what it
  // sends (2x). Backward adds the box's gradient into the tiles it came
  // from (read both, write one: 3x) and packs what goes back (2x).
  return 5 * kBytesPerElement * double(boxElements) + 4 * sentBytes;
}

double CostModel::transferCopyMs(int64_t boxElements, double sentBytes) const {
  double gbps = runtimeCopyGbps();
  return gbps > 0 ? transferCopyBytes(boxElements, sentBytes) / (gbps * 1e6)
                  : 0;
}

TransferCost
CostModel::transferCost(const Layer &producer,
                        const ParallelConfig &producerConfig,
                        const Layer &consumer, unsigned operand,
                        const ParallelConfig &consumerConfig) const {
  return transferCost(
      producerGrid(producer.shape, producerConfig, machine.devicesPerNode),
      consumerTiles(consumer, operand, consumerConfig,
                    machine.devicesPerNode));
}

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
  // Parameters, gradients and momentum; the activation kept for backward
  // and its gradient (the loss keeps none), and what else the forward keeps
  // for backward; the input copies.
  int64_t kept = layer.kind == CostKind::Loss ? 0 : tile.volume();
  return int64_t(kBytesPerElement) * (3 * shard + 2 * kept) +
         layer.workspaceBytesPerElement * kept + inputBytes;
}

/// How many copies of its box of an operand a consumer task keeps, as the
/// runtime's executor does (exec/Prepare.cpp): the images' box once; an
/// activation's box and its gradient, except where the edge needs no
/// transfer (every task reads its own device's tile in place): then none
/// for the only reader, and the gradient alone for one of several.
static int inputCopies(const ProducerGrid *producer, const ConsumerTiles &tiles,
                       bool onlyReader) {
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
                   int64_t(kBytesPerElement) * tiles.boxes[t].volume();
  }
  int64_t most = 0;
  for (int64_t t = 0; t < config.tasks(); ++t)
    most = std::max(most, taskMemoryBytes(layer, config, t, images[t]));
  return most;
}

int64_t CostModel::inputCopyBytes(const ProducerGrid &producer,
                                  const ConsumerTiles &tiles,
                                  bool onlyReader) {
  int copies = inputCopies(&producer, tiles, onlyReader);
  int64_t most = 0;
  for (const TileBox &box : tiles.boxes)
    most = std::max(most, box.volume());
  return copies * int64_t(kBytesPerElement) * most;
}

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
        grid = producerGrid(graph.layers[p].shape, strategy[p]);
      int copies =
          inputCopies(grid ? &*grid : nullptr, tiles, p >= 0 && consumers[p] == 1);
      for (int64_t t = 0; t < config.tasks(); ++t)
        inputBytes[t] +=
            copies * int64_t(kBytesPerElement) * tiles.boxes[t].volume();
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
