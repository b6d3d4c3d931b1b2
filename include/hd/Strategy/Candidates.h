//===- Candidates.h - the configurations each layer may take ----*- C++ -*-===//
//
// What the search chooses from and what the baselines apply. The search's
// candidates include every baseline's configuration, so the search can
// never lose to a baseline; pinned and imported configurations are added by
// the planner.
//
//===----------------------------------------------------------------------===//

#ifndef HD_STRATEGY_CANDIDATES_H
#define HD_STRATEGY_CANDIDATES_H

#include "hd/CostModel/LayerGraph.h"
#include "hd/Strategy/StrategyKind.h"

#include <vector>

namespace hd {

/// The configuration a baseline (data, model or OWT) gives a layer on
/// `devices` devices: the largest degree along n (data) or c (model) that
/// divides the device count, fits the dimension and obeys the layer's split
/// rule. `afterFirstLinear` says whether a fully-connected layer came at or
/// before this one (OWT switches to model parallelism there).
ParallelConfig baselineConfig(StrategyKind kind, const Layer &layer,
                              int64_t devices, bool afterFirstLinear);

/// The configurations of every layer a baseline gives, in program order.
std::vector<ParallelConfig>
baselineStrategy(StrategyKind kind, const LayerGraph &graph, int64_t devices);

/// The search's candidates for every layer: candidateConfigs of its shape
/// and split rule, plus each baseline's configuration.
std::vector<std::vector<ParallelConfig>>
searchCandidates(const LayerGraph &graph, int64_t devices);

} // namespace hd

#endif // HD_STRATEGY_CANDIDATES_H
