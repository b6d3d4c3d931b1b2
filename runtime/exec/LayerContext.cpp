//===- LayerContext.cpp - what a layer kind's code sees of its rank -------===//

#include "LayerContext.h"

#include "Errors.h"
#include "Network.h"

#include <string>

namespace hdrt::exec {

void LayerContext::syncStatistics(const Layer &l, void *data, int64_t count,
                                  ElementType type, ReduceOp op) const {
  Charge sync(timers_, Category::Sync);
  if (int rc = device_.allReduce(l.statsComm, data, count, type, op))
    throw Error("error " + std::to_string(rc) +
                " combining the statistics of '" + l.name + "'");
}

} // namespace hdrt::exec
