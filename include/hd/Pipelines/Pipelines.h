//===- Pipelines.h - hd's registered pass pipelines -------------*- C++ -*-===//
//
// `hd-opt --hd-compile='devices=... machine=...'`: the common path from an
// imported training graph to the program hd-translate --hd-to-executable
// takes, in one flag. Each pass stays runnable on its own.
//
//===----------------------------------------------------------------------===//

#ifndef HD_PIPELINES_PIPELINES_H
#define HD_PIPELINES_PIPELINES_H

#include "hd/Dialect/HD/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace hd {

/// The options of --layerwise-parallelize, under the same names, types,
/// defaults and descriptions: generated from the pass's declaration
/// (Passes.td), so that a new option of the pass is one of these too.
struct CompileOptions : public mlir::PassPipelineOptions<CompileOptions> {
#define GEN_PASS_PIPELINE_OPTIONS_LAYERWISEPARALLELIZEPASS
#include "hd/Pipelines/PassPipelineOptions.h.inc"
};

/// --layerwise-parallelize, --hd-insert-transfers, --hd-lower-to-runtime
/// (which checks the transfers first).
void buildCompilePipeline(mlir::OpPassManager &pm,
                          const CompileOptions &options);

/// Registers --hd-compile.
void registerPipelines();

} // namespace hd

#endif // HD_PIPELINES_PIPELINES_H
