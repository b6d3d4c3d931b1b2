//===- LayerGraph.cpp - what a layer graph says of its own layers ---------===//
//
// Facts of a layer that follow from the graph alone, whatever the machine:
// the cost model, the memory bound and the lowering's gradient buffers all
// size a parameter shard the same way.
//
//===----------------------------------------------------------------------===//

#include "hd/CostModel/LayerGraph.h"

namespace hd {

int64_t parameterShard(const Layer &layer, int64_t degree, int64_t index) {
  int64_t channels = layer.shape.size() > 1 ? layer.shape[1] : 1;
  if (layer.params == 0 || channels < 1)
    return 0;
  return layer.params / channels * blockPart(channels, degree, index).size();
}

} // namespace hd
