//===- LayerwiseParallelize.cpp - choose every layer's configuration ------===//
//
// The IR side of the planner (hd/Strategy/Planner.h): the module becomes a
// LayerGraph, pinned layers become fixed candidates, and the chosen
// configurations come back as #hd.pconfig attributes. Every decision is the
// planner's.
//
//===----------------------------------------------------------------------===//

#include "hd/Dialect/HD/Analysis/LayerGraphBuilder.h"
#include "hd/Dialect/HD/IR/HDNumerics.h"
#include "hd/Dialect/HD/IR/HDOps.h"
#include "hd/Dialect/HD/Transforms/Passes.h"
#include "hd/Strategy/Planner.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"

namespace hd {
#define GEN_PASS_DEF_LAYERWISEPARALLELIZEPASS
#include "hd/Dialect/HD/Transforms/Passes.h.inc"
} // namespace hd

using namespace mlir;
using namespace hd;

namespace {

/// An error about the whole model, at the module's location: attached to
/// the module op, the diagnostic would also print the whole module.
void emitModuleError(ModuleOp module, const llvm::Twine &message) {
  mlir::emitError(module.getLoc(), message);
}

struct LayerwiseParallelizePass
    : public hd::impl::LayerwiseParallelizePassBase<LayerwiseParallelizePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The precision the module has already, unless the options say.
    std::string wantedPrecision = precision.empty()
                                      ? precisionName(modulePrecision(module))
                                      : precision.getValue();
    std::string wantedSync = gradSync.empty()
                                 ? precisionName(gradientSyncPrecision(module))
                                 : gradSync.getValue();
    llvm::Expected<Target> target = resolveTarget(
        {machine, devices, strategy, profile, wantedPrecision, wantedSync});
    if (!target) {
      emitModuleError(module, llvm::toString(target.takeError()));
      return signalPassFailure();
    }
    if (failed(assignNumerics(module, target->precision, target->gradientSync)))
      return signalPassFailure();
    FailureOr<ModuleLayers> layers =
        buildLayerGraph(module, "--layerwise-parallelize");
    if (failed(layers))
      return signalPassFailure();
    if (layers->ops.empty())
      return;
    std::vector<LayerOpInterface> &ops = layers->ops;

    // Pinned layers keep their configuration under every strategy.
    std::vector<std::optional<ParallelConfig>> pinned(ops.size());
    for (size_t l = 0; l < ops.size(); ++l) {
      PConfigAttr attr = ops[l].getParallelConfig();
      if (!attr)
        continue;
      pinned[l] = toParallelConfig(attr, layers->graph.layers[l].shape.size());
      if (pinned[l]->tasks() > target->devices) {
        ops[l]->emitError() << "pinned configuration " << attr << " has "
                            << pinned[l]->tasks() << " tasks but only "
                            << target->devices << " devices are available";
        return signalPassFailure();
      }
    }

    Planner planner(layers->graph, std::move(*target));
    // A person watching sees where a long search is; logs stay clean.
    if (llvm::sys::Process::StandardErrIsDisplayed())
      planner.setProgressStream(&llvm::errs());
    if (llvm::Error error = planner.plan(pinned, importPath)) {
      llvm::handleAllErrors(std::move(error), [&](const PlanError &e) {
        if (e.layer < 0)
          emitModuleError(module, e.message);
        else if (e.onOperation)
          ops[e.layer]->emitOpError(e.message);
        else
          ops[e.layer]->emitError(e.message);
      });
      return signalPassFailure();
    }

    // Write the strategy into the IR; the verifier checks every degree
    // against its dimension, its split rule and hd.devices.
    MLIRContext *context = &getContext();
    module->setAttr(
        HDDialect::getDevicesAttrName(),
        IntegerAttr::get(IntegerType::get(context, 64), planner.devices()));
    for (size_t l = 0; l < ops.size(); ++l)
      ops[l]->setAttr("parallel", toAttr(context, planner.configs()[l]));
    for (LayerOpInterface op : ops)
      if (failed(verifyLayerConfig(op)))
        return signalPassFailure();

    // The search keeps to the devices' memory; a baseline, a pinned or an
    // imported strategy may not: say so, rather than hand out a plan that
    // fails.
    int64_t peak = planner.cost().peakMemBytes;
    int64_t capacity = planner.capacityBytes();
    if (peak > capacity)
      mlir::emitWarning(module.getLoc()) << llvm::formatv(
          "the {0} strategy needs {1:F2} GiB on its fullest device, above "
          "the {2:F2} GiB each device of '{3}' offers (mem_gib less "
          "mem_reserve_gib): it would run out of memory; use fewer images "
          "per device, or more devices",
          strategy, peak / 1073741824.0, capacity / 1073741824.0, machine);

    ReportOutputs outputs{report, dot, print};
    if (!outputs.any())
      return;
    if (llvm::Error error = writeReport(planner.report(), outputs)) {
      emitModuleError(module, llvm::toString(std::move(error)));
      return signalPassFailure();
    }
  }
};

} // namespace
