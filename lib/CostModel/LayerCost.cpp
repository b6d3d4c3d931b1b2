//===- LayerCost.cpp - t_c: the time of a layer's largest tile ------------===//
//
// A layer's step is as slow as its largest tile: measured where the profile
// database has that tile, else a roofline estimate of each pass, plus the
// runtime's adds of shared input gradients, scaled for processes that share
// cores and for stragglers. The syncs a layer's tasks wait for (statistics,
// gradients) are SyncCost.cpp's.
//
//===----------------------------------------------------------------------===//

#include "hd/CostModel/CostModel.h"

#include <algorithm>

namespace hd {

double CostModel::rooflineMs(double flops, double bytes, bool dense,
                             Precision compute) const {
  // Only dense kernels reach the low precisions' rates (tensor cores,
  // AVX512_BF16 dot products); the rest is bound by memory anyway.
  double peak = dense ? machine.peakGflopsIn(compute) : 0;
  double rate = (peak > 0 ? peak : machine.peakGflops) *
                (dense ? machine.efficiency : 1.0);
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
    bytes += others * 3 * bytesOf(in.type) * layer.inputBox(i, tile).volume();
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
    double elementBytes = bytesOf(layer.inputs[i].type);
    in += elementBytes * layer.inputBox(i, tile).volume();
    innerIn += elementBytes * layer.inputBox(i, inner).volume();
    needsInputGradient |= layer.inputs[i].producer >= 0;
  }
  in = std::max(in, innerIn);
  const LayerNumerics &types = layer.numerics;
  double out = bytesOf(types.output) * tile.volume();
  int64_t c = config.degrees.size() > 1 ? config.degrees[1] : 1;
  double shard = double(parameterShard(layer, c, 0));
  // The kernels read the parameters in the compute type.
  double weights = bytesOf(types.compute) * shard;
  // The optimizer step of the shard: read the fp32 parameters, the
  // gradients and the momentum, write parameters and momentum, and the
  // compute type's copy where that is not fp32.
  double updateBytes =
      (16 + bytesOf(layer.gradientType) + weightCopyBytes(types.compute)) *
      shard;
  double update =
      shard > 0 ? rooflineMs(3 * shard, updateBytes, false, Precision::F32) : 0;
  auto roofline = [&](double flops, double bytes, bool dense) {
    return rooflineMs(flops, bytes, dense, types.compute);
  };
  switch (layer.kind) {
  case CostKind::Conv:
  case CostKind::Linear: {
    double forward = roofline(flops, in + weights + out, true);
    double ms = forward + roofline(flops, out + in + weights, true);
    if (needsInputGradient)
      ms += roofline(flops, out + weights + in, true); // data
    return {ms + update, ms - forward, update};
  }
  case CostKind::Normalization: {
    // Backward needs about twice the forward work (two reductions).
    double backward = roofline(2 * flops, 2 * out + in, false);
    return {roofline(flops, in + out, false) + backward + update, backward,
            update};
  }
  default: {
    double backward =
        roofline(flops, out + in + (needsInputGradient ? in : 0), false);
    return {roofline(flops, in + out, false) + backward, backward, 0};
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
  if (!layer.statistics.empty())
    cost.computeMs += statisticsSyncMs(layer, config);

  // Gradient sync: parameters split along c, replicated along n, h, w.
  if (layer.params > 0)
    cost.syncMs = gradientSyncMs(layer, config, cost.syncBytes);
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

} // namespace hd
