//===- Pipelines.h - hd's registered pass pipelines -------------*- C++ -*-===//
//
// `hd-opt --hd-compile='devices=... machine=...'`: the common path from an
// imported training graph to the program hd-translate --hd-to-executable
// takes, in one flag. Each pass stays runnable on its own.
//
//===----------------------------------------------------------------------===//

#ifndef HD_PIPELINES_PIPELINES_H
#define HD_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace hd {

/// The options of --layerwise-parallelize, under the same names.
struct CompileOptions : public mlir::PassPipelineOptions<CompileOptions> {
  Option<int64_t> devices{*this, "devices",
                          llvm::cl::desc("Number of devices (default: all "
                                         "devices of the machine)"),
                          llvm::cl::init(-1)};
  Option<std::string> machine{
      *this, "machine",
      llvm::cl::desc("Built-in machine (cpu, p100-cluster, h200-node) or a "
                     "machine JSON file"),
      llvm::cl::init("cpu")};
  Option<std::string> strategy{
      *this, "strategy",
      llvm::cl::desc("layerwise, data, model, owt or exhaustive"),
      llvm::cl::init("layerwise")};
  Option<std::string> report{*this, "report",
                             llvm::cl::desc("Write the JSON report here")};
  Option<std::string> importPath{
      *this, "import",
      llvm::cl::desc("Apply the strategy saved in this report")};
  Option<bool> print{*this, "print",
                     llvm::cl::desc("Print the strategy table to stderr"),
                     llvm::cl::init(false)};
  Option<std::string> dot{*this, "dot",
                          llvm::cl::desc("Write a Graphviz picture here")};
  Option<std::string> profile{
      *this, "profile",
      llvm::cl::desc("Profile database of measured layer times")};
};

/// --layerwise-parallelize, --hd-insert-transfers, --hd-lower-to-runtime
/// (which checks the transfers first).
void buildCompilePipeline(mlir::OpPassManager &pm,
                          const CompileOptions &options);

/// Registers --hd-compile.
void registerPipelines();

} // namespace hd

#endif // HD_PIPELINES_PIPELINES_H
