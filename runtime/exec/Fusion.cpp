//===- Fusion.cpp - a ReLU computed by its producer's forward -------------===//
//
// A ReLU after batch norm or a residual add reads that tile back only to
// write max(x, 0) into a second one: 25 ms of a 1100 ms ResNet-50 b8 step
// on one process. Where the ReLU is its producer's only reader, reading it
// in place, the producer writes the ReLU's output itself
// (LayerImpl::appliesRelu) and the ReLU's forward is done. Nothing else
// reads the producer's own output then: the ReLU's backward takes its mask
// from its output, and the producer's backward reads its input (batch norm)
// or nothing (add). Values are the same as unfused, bit for bit.
//
//===----------------------------------------------------------------------===//

#include "RankState.h"

#include "LayerImpl.h"

namespace hdrt::exec {

void RankState::fuseRelus() {
  // A profiled layer is timed alone, as the search models it.
  if (options_.profiling)
    return;
  for (Layer &relu : network_.layers()) {
    if (relu.task < 0 || !relu.impl->isRelu())
      continue;
    const Edge &e = *relu.inputs[0];
    if (e.producer < 0 || !e.gradAliased)
      continue;
    Layer &producer = network_.layers()[size_t(e.producer)];
    if (!producer.impl->appliesRelu())
      continue;
    producer.reluInto = &relu;
    relu.computedByProducer = true;
  }
}

} // namespace hdrt::exec
