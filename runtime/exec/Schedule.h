//===- Schedule.h - the learning rate of each step --------------*- C++ -*-===//

#ifndef HDRT_EXEC_SCHEDULE_H
#define HDRT_EXEC_SCHEDULE_H

#include "Options.h"

namespace hdrt::exec {

/// The learning rate of step `step` (counted from 0) of a run of `steps`
/// steps in all, as PyTorch's schedulers give it: constant; step (MultiStepLR,
/// x gamma at each milestone, by default at half and three quarters of the
/// run); or cosine (CosineAnnealingLR to 0 over the steps after the warm-up).
/// A warm-up of K steps scales the first K by (step + 1) / K.
double learningRate(const Options &options, int64_t step, int64_t steps);

} // namespace hdrt::exec

#endif // HDRT_EXEC_SCHEDULE_H
