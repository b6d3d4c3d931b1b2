//===- LayerFixtures.h - machines and layers tests build by hand -*- C++ -*-===//

#ifndef HD_UNITTESTS_COMMON_LAYERFIXTURES_H
#define HD_UNITTESTS_COMMON_LAYERFIXTURES_H

#include "hd/CostModel/LayerGraph.h"
#include "hd/CostModel/Machine.h"

#include <gtest/gtest.h>

namespace hd::test {

/// The paper's machine, p100-cluster.
inline Machine p100Cluster() {
  llvm::Expected<Machine> m = loadMachine("p100-cluster");
  EXPECT_TRUE(static_cast<bool>(m));
  return *m;
}

/// A 512 -> 1000 fully-connected layer on a batch of 64, reading layer 0.
inline Layer fcLayer() {
  Layer l;
  l.name = "fc";
  l.op = "linear";
  l.kind = CostKind::Linear;
  l.shape = {64, 1000};
  l.params = 1000 * 512 + 1000;
  l.forwardFlops = 2LL * 64 * 1000 * 512;
  l.inputs = {{0, {64, 512}}};
  l.inputBox = [](unsigned, const TileBox &t) {
    return TileBox({t[0], {0, 512}});
  };
  l.signature = "linear-test";
  return l;
}

/// `g` planned in `precision`: every layer takes autocast's types from its
/// producers' (Precision.h), as the IR's walk gives them.
inline LayerGraph inPrecision(LayerGraph g, Precision precision) {
  g.precision = precision;
  for (Layer &layer : g.layers) {
    std::vector<Precision> inputs;
    for (LayerInput &in : layer.inputs) {
      in.type = in.producer < 0 ? Precision::F32
                                : g.layers[in.producer].numerics.output;
      inputs.push_back(in.type);
    }
    layer.numerics = layerNumerics(layer.kind, inputs, precision);
  }
  return g;
}

} // namespace hd::test

#endif // HD_UNITTESTS_COMMON_LAYERFIXTURES_H
