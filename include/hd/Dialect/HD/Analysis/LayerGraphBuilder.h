//===- LayerGraphBuilder.h - hd IR as a plain layer graph -------*- C++ -*-===//
//
// The one adaptor from IR to the plain-C++ world of the cost model, the
// search and the planner: every layer op becomes a Layer described only
// through LayerOpInterface, so no pass or library downstream names an op.
//
//===----------------------------------------------------------------------===//

#ifndef HD_DIALECT_HD_ANALYSIS_LAYERGRAPHBUILDER_H
#define HD_DIALECT_HD_ANALYSIS_LAYERGRAPHBUILDER_H

#include "hd/CostModel/LayerGraph.h"
#include "hd/Dialect/HD/IR/HDOps.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace hd {

/// The layers of a module's training function, in program order, and their
/// plain-C++ description (with the model's name, hash and batch). The ops
/// must outlive the graph: its input-box functions call back into
/// LayerOpInterface.
struct ModuleLayers {
  std::vector<LayerOpInterface> ops;
  LayerGraph graph;
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

#endif // HD_DIALECT_HD_ANALYSIS_LAYERGRAPHBUILDER_H
