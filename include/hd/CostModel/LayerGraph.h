//===- LayerGraph.h - what the cost model knows of a network ---*- C++ -*-===//
//
// Plain C++: a layer is a shape, counts, and a function from an output tile
// to the input box it reads. The MLIR pass fills it from LayerOpInterface;
// tests build it by hand.
//
//===----------------------------------------------------------------------===//

#ifndef HD_COSTMODEL_LAYERGRAPH_H
#define HD_COSTMODEL_LAYERGRAPH_H

#include "hd/CostModel/CostKind.h"
#include "hd/CostModel/Precision.h"
#include "hd/Tiling/ParallelConfig.h"
#include "hd/Tiling/TileBox.h"

#include <functional>
#include <string>
#include <vector>

namespace hd {

struct LayerInput {
  /// Index of the producing layer, or -1 for a graph input (images and
  /// labels), which every task loads for itself.
  int producer = -1;
  std::vector<int64_t> shape;
  /// How many operands in the graph read the producer's output, this one
  /// included. Where several do, the runtime adds their gradients into
  /// the producer's: every reader but one adds its input box.
  int producerReaders = 1;
  /// The type the operand arrives in: the producer's output type (a graph
  /// input's is fp32).
  Precision type = Precision::F32;
};

struct Layer {
  std::string name;
  std::string op; // "conv2d", "linear", ...: for reports only
  CostKind kind = CostKind::Elementwise;
  /// The partitioned shape: what a configuration splits.
  std::vector<int64_t> shape;
  int64_t params = 0;
  /// Forward FLOPs of the whole layer.
  int64_t forwardFlops = 0;
  std::vector<LayerInput> inputs;
  /// The box of input `operand` that the output tile reads.
  std::function<TileBox(unsigned operand, const TileBox &tile)> inputBox;
  /// Op, attributes and shapes: layers with equal signatures cost the same
  /// under the same configuration. Keys the profile database.
  std::string signature;
  /// The configurations the layer may take.
  SplitRule split;
  /// What its tasks combine with the tasks that share a slice of it.
  SharedStatistics statistics;
  /// Bytes per output element its forward keeps for its backward besides
  /// the output (max pooling's argmax).
  int64_t workspaceBytesPerElement = 0;
  /// The type of its arithmetic (its dense rate) and of its output, which
  /// its readers receive (Precision.h).
  LayerNumerics numerics;
  /// The type its parameter gradients are kept and summed in; master
  /// weights and momentum are fp32 whatever the precision.
  Precision gradientType = Precision::F32;
};

/// Parameters of the part `index` of a layer's `degree`-way channel split.
/// Parameters belong to output channels (weights and bias of a channel, the
/// scale and shift of a normalized channel), so a shard is whole channels.
int64_t parameterShard(const Layer &layer, int64_t degree, int64_t index);

/// A network: its identity and its layers in topological order.
struct LayerGraph {
  std::string model;
  /// Identifies the network (ops, attributes, shapes, edges) regardless of
  /// configurations and locations: a strategy applies only to its model.
  std::string modelHash;
  int64_t batch = 1;
  /// The program's low precision (fp32: none).
  Precision precision = Precision::F32;
  std::vector<Layer> layers;
};

} // namespace hd

#endif // HD_COSTMODEL_LAYERGRAPH_H
