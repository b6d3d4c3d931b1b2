//===- Schedule.cpp - the learning rate of each step ----------------------===//

#include "Schedule.h"

#include <algorithm>
#include <cmath>

namespace hdrt::exec {

double learningRate(const Options &o, int64_t step, int64_t steps) {
  double lr = o.lr;
  switch (o.schedule) {
  case LrSchedule::Constant:
    break;
  case LrSchedule::Step: {
    std::vector<int64_t> milestones = o.milestones;
    if (milestones.empty())
      // Never step 0: a run of one step keeps its rate.
      milestones = {std::max<int64_t>(1, steps / 2),
                    std::max<int64_t>(1, steps * 3 / 4)};
    for (int64_t m : milestones)
      if (step >= m)
        lr *= o.gamma;
    break;
  }
  case LrSchedule::Cosine: {
    int64_t span = std::max<int64_t>(1, steps - o.warmup);
    double t = double(std::clamp<int64_t>(step - o.warmup, 0, span));
    lr *= 0.5 * (1 + std::cos(M_PI * t / double(span)));
    break;
  }
  }
  if (step < o.warmup)
    lr *= double(step + 1) / double(o.warmup);
  return lr;
}

} // namespace hdrt::exec
