//===- LayerGraphBuilder.h - hd IR to the cost model's layer graph -*- C++ -*-===//

#ifndef HD_LIB_DIALECT_HD_TRANSFORMS_LAYERGRAPHBUILDER_H
#define HD_LIB_DIALECT_HD_TRANSFORMS_LAYERGRAPHBUILDER_H

#include "hd/CostModel/LayerGraph.h"
#include "hd/Dialect/HD/IR/HDOps.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace hd {

/// The layers of a module's training function, in program order, and their
/// plain-C++ description. The ops must outlive the graph: its input-box
/// functions call back into LayerOpInterface.
struct ModuleLayers {
  std::vector<LayerOpInterface> ops;
  LayerGraph graph;
  /// Identifies the network (ops, attributes, shapes, edges) regardless of
  /// configurations and locations: a strategy applies only to its model.
  std::string modelHash;
  std::string modelName;
  int64_t batch = 1;
};

/// Fails with a diagnostic on anything that is not a single function of hd
/// layers; `tool` (a pass flag or tool name) names the caller in it.
/// Succeeds with no layers when the module has none.
mlir::FailureOr<ModuleLayers> buildLayerGraph(mlir::ModuleOp module,
                                              llvm::StringRef tool);

/// The partitioned-shape rank's degrees of a configuration attribute.
ParallelConfig toParallelConfig(PConfigAttr attr, size_t rank);
PConfigAttr toAttr(mlir::MLIRContext *context, const ParallelConfig &config);

} // namespace hd

#endif // HD_LIB_DIALECT_HD_TRANSFORMS_LAYERGRAPHBUILDER_H
