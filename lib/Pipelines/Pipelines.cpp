//===- Pipelines.cpp - hd's registered pass pipelines ---------------------===//

#include "hd/Pipelines/Pipelines.h"

#include "hd/Conversion/Passes.h"
#include "hd/Dialect/HD/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

namespace hd {

void buildCompilePipeline(mlir::OpPassManager &pm,
                          const CompileOptions &options) {
  pm.addPass(createLayerwiseParallelizePass(
      options.getLayerwiseParallelizePassOptions()));
  pm.addPass(createInsertTransfersPass());
  pm.addPass(createLowerToRuntimePass());
}

void registerPipelines() {
  mlir::PassPipelineRegistration<CompileOptions>(
      "hd-compile",
      "Parallelize every layer, make transfers and gradient syncs explicit, "
      "and lower to calls of the hdrt runtime",
      buildCompilePipeline);
}

} // namespace hd
