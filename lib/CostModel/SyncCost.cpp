//===- SyncCost.cpp - t_s and the statistics syncs: all-reduce times ------===//
//
// Tasks that hold copies of one slice of a layer sum something across each
// group of them: the gradient of a parameter shard (t_s), or the statistics
// of batch norm and the softmax (part of t_c). Each sum is a ring
// all-reduce over the group's slowest link; groups that span nodes share
// the network interfaces they cross, and a machine with a measured curve
// takes its rate at the sum's size.
//
//===----------------------------------------------------------------------===//

#include "hd/CostModel/CostModel.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace hd {

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

double CostModel::statisticsSyncMs(const Layer &layer,
                                   const ParallelConfig &config) const {
  const SharedStatistics &stats = layer.statistics;
  double indices = 1;
  for (size_t d = 0; d < config.degrees.size(); ++d)
    if ((stats.perDims >> d) & 1)
      indices *= blockPart(layer.shape[d], config.degrees[d], 0).size();
  return stats.rounds *
         groupsAllReduceMs(*this, stats.bytesPerIndex * indices,
                           statisticGroups(config, stats.perDims));
}

double CostModel::gradientSyncMs(const Layer &layer,
                                 const ParallelConfig &config,
                                 double &bytes) const {
  int64_t c = config.degrees.size() > 1 ? config.degrees[1] : 1;
  double shard = bytesOf(layer.gradientType) * parameterShard(layer, c, 0);
  return groupsAllReduceMs(*this, shard, replicaGroups(config), &bytes);
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

} // namespace hd
