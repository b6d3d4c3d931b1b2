//===- TransferPlans.h - transfer plans and replica groups ------*- C++ -*-===//
//
// What --hd-insert-transfers builds and --hd-verify-transfers checks, from
// one place: the plan of an edge and the replica groups of a layer, as IR.
//
//===----------------------------------------------------------------------===//

#ifndef HD_DIALECT_HD_ANALYSIS_TRANSFERPLANS_H
#define HD_DIALECT_HD_ANALYSIS_TRANSFERPLANS_H

#include "hd/Dialect/HD/Analysis/LayerGraphBuilder.h"
#include "hd/Tiling/ParallelConfig.h"

#include <optional>
#include <vector>

namespace hd {

/// A configured module: its layers and each layer's configuration.
struct ConfiguredModule {
  ModuleLayers layers;
  std::vector<ParallelConfig> configs;
};

/// Fails with a diagnostic when the module lacks hd.devices or a layer
/// lacks a configuration; `pass` names the pass in the message.
mlir::FailureOr<ConfiguredModule> configuredModule(mlir::ModuleOp module,
                                                   llvm::StringRef pass);

/// The moves operand `operand` of layer `consumer` needs, or nullopt when
/// every task reads exactly its own device's tile (no transfer).
std::optional<mlir::ArrayAttr> planAttr(const ConfiguredModule &m, int consumer,
                                        unsigned operand);

/// The replica groups with more than one task, or an empty attribute when
/// the layer's parameters need no sync.
mlir::ArrayAttr replicaGroupsAttr(const ConfiguredModule &m, int layer);

/// Checks what lowering relies on: every edge between different tiles goes
/// through an hd.transfer with the exact plan, and every layer with
/// replicated parameters has one hd.grad_sync of its replica groups.
/// Emits an error on each offending op.
mlir::LogicalResult verifyTransfers(const ConfiguredModule &m,
                                    mlir::ModuleOp module);

/// Bytes of one parameter shard's gradient.
int64_t gradientShardBytes(const ConfiguredModule &m, int layer);

} // namespace hd

#endif // HD_DIALECT_HD_ANALYSIS_TRANSFERPLANS_H
