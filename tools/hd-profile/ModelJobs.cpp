//===- ModelJobs.cpp - what hd-profile measures of a model ----------------===//

#include "ModelJobs.h"

#include "hd/Conversion/HDToRuntime/RuntimeLayer.h"
#include "hd/Dialect/HD/Analysis/LayerGraphBuilder.h"
#include "hd/Tiling/TileBox.h"

#include <set>

using namespace mlir;

namespace hd {

FailureOr<std::vector<ModelJob>> modelJobs(ModuleOp module, int64_t devices) {
  FailureOr<ModuleLayers> built = buildLayerGraph(module, "hd-profile");
  if (failed(built))
    return failure();
  std::vector<ModelJob> jobs;
  const std::vector<Layer> &layers = built->graph.layers;
  std::vector<RuntimeLayer> runtimes;
  for (auto op : built->ops) {
    FailureOr<RuntimeLayer> runtime = runtimeLayer(op);
    if (failed(runtime))
      return failure();
    runtimes.push_back(std::move(*runtime));
  }
  // Whether a step zeroes a layer's output gradient: unless the first of
  // its readers to run backward (the last in program order) overwrites it
  // whole (as exec/Prepare.cpp and Step.cpp decide, where the reader reads
  // the tile in place, as under data parallelism).
  std::vector<int> readers(layers.size(), 0), reader(layers.size(), -1);
  for (size_t l = 0; l < layers.size(); ++l)
    for (const LayerInput &in : layers[l].inputs)
      if (in.producer >= 0) {
        ++readers[in.producer];
        reader[in.producer] = int(l);
      }
  auto zeroesGradient = [&](size_t l) {
    return readers[l] == 0 || !hdrt::writesWholeInputGradients(
                                  hdrt::LayerKind(runtimes[reader[l]].kind));
  };
  std::set<std::pair<std::string, std::vector<int64_t>>> seen;
  for (size_t l = 0; l < built->ops.size(); ++l) {
    Operation *op = built->ops[l];
    const Layer &layer = layers[l];
    hdrt::LayerDescriptor descriptor;
    descriptor.kind = hdrt::LayerKind(runtimes[l].kind);
    descriptor.words = runtimes[l].words();
    // The candidates of the search: every configuration the layer's split
    // rule allows.
    for (const ParallelConfig &config :
         candidateConfigs(layer.shape, layer.split, devices)) {
      TileBox tile = largestTile(layer.shape, config.degrees);
      std::vector<int64_t> tileShape;
      for (unsigned d = 0; d < tile.rank(); ++d)
        tileShape.push_back(tile[d].size());
      if (!seen.insert({layer.signature, tileShape}).second)
        continue;
      ModelJob &m = jobs.emplace_back();
      m.layer = layer.name;
      m.op = layer.op;
      m.job.signature = layer.signature;
      m.job.tile = tileShape;
      hdrt::LayerProfileRequest &r = m.job.request;
      r.layer = descriptor;
      r.name = layer.name;
      r.shape = layer.shape;
      r.degrees = config.degrees;
      r.zeroOutputGradient = zeroesGradient(l);
      for (unsigned i = 0; i < op->getNumOperands(); ++i) {
        hdrt::ProfileOperand operand;
        auto type = cast<RankedTensorType>(op->getOperand(i).getType());
        operand.shape.assign(type.getShape().begin(), type.getShape().end());
        operand.labels = type.getElementType().isInteger(32);
        // As in the program: no gradient for the images.
        operand.gradient = layer.inputs[i].producer >= 0;
        r.operands.push_back(std::move(operand));
      }
    }
  }
  return jobs;
}

} // namespace hd
