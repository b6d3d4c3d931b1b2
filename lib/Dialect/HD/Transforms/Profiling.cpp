//===- Profiling.cpp - what hd-profile measures ---------------------------===//

#include "hd/Dialect/HD/Transforms/Profiling.h"

#include "hd/Analysis/LayerGraphBuilder.h"
#include "RuntimeLayers.h"

#include "hd/Tiling/TileBox.h"

#include <set>

using namespace mlir;

namespace hd {

FailureOr<std::vector<ProfileJob>> profileJobs(ModuleOp module,
                                               int64_t devices) {
  FailureOr<ModuleLayers> built = buildLayerGraph(module, "hd-profile");
  if (failed(built))
    return failure();
  std::vector<ProfileJob> jobs;
  std::set<std::pair<std::string, std::vector<int64_t>>> seen;
  for (size_t l = 0; l < built->ops.size(); ++l) {
    Operation *op = built->ops[l];
    const Layer &layer = built->graph.layers[l];
    FailureOr<LayerAttrs> attrs = layerAttrs(op);
    if (failed(attrs))
      return failure();
    // The candidates of the search (LayerwiseParallelize): every legal
    // configuration, channel splits of grouped convolutions keeping groups.
    for (const ParallelConfig &config :
         candidateConfigs(layer.shape, layer.split, devices)) {
      TileBox tile = largestTile(layer.shape, config.degrees);
      std::vector<int64_t> tileShape;
      for (unsigned d = 0; d < tile.rank(); ++d)
        tileShape.push_back(tile[d].size());
      if (!seen.insert({layer.signature, tileShape}).second)
        continue;
      ProfileJob job;
      job.layer = layer.name;
      job.op = layer.op;
      job.signature = layer.signature;
      job.tile = tileShape;
      hdrt::LayerProfileRequest &r = job.request;
      r.kind = int64_t(attrs->kind);
      r.name = layer.name;
      r.shape = layer.shape;
      r.degrees = config.degrees;
      r.attrs.assign(attrs->ints.begin(), attrs->ints.end());
      r.float0 = attrs->f0;
      r.float1 = attrs->f1;
      for (unsigned i = 0; i < op->getNumOperands(); ++i) {
        hdrt::ProfileOperand operand;
        auto type = cast<RankedTensorType>(op->getOperand(i).getType());
        operand.shape.assign(type.getShape().begin(), type.getShape().end());
        operand.labels = type.getElementType().isInteger(32);
        // As in the program: no gradient for the images.
        operand.gradient = layer.inputs[i].producer >= 0;
        r.operands.push_back(std::move(operand));
      }
      jobs.push_back(std::move(job));
    }
  }
  return jobs;
}

} // namespace hd
