//===- HDNumerics.h - the precision of a module and its layers -*- C++ -*-===//
//
// The IR's record of mixed precision (hd/CostModel/Precision.h): the module's
// `hd.precision` (its low precision) and `hd.grad_sync_type` (the type
// gradients are summed in), and each layer's `hd.compute_type`. Tensor types
// stay the training graph's f32: the attributes say what the runtime computes,
// stores and moves them in. A layer's output type follows from its compute
// type and its inputs' types by autocast's rules, so it is not written.
//
//===----------------------------------------------------------------------===//

#ifndef HD_DIALECT_HD_IR_HDNUMERICS_H
#define HD_DIALECT_HD_IR_HDNUMERICS_H

#include "hd/CostModel/Precision.h"
#include "hd/Dialect/HD/IR/HDInterfaces.h"

#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace hd {

/// f32, bf16 or f16 as a Precision; none for any other type.
std::optional<Precision> precisionOf(mlir::Type type);
mlir::Type typeOf(mlir::MLIRContext *context, Precision precision);

/// The module's `hd.precision`, fp32 where it has none.
Precision modulePrecision(mlir::ModuleOp module);
/// The module's `hd.grad_sync_type`, fp32 where it has none.
Precision gradientSyncPrecision(mlir::ModuleOp module);
/// A layer's `hd.compute_type`, if it has one.
std::optional<Precision> layerComputeType(mlir::Operation *op);

/// Visits the layers of `body` in program order with their operands'
/// types (a producer layer's output type, through transfers; fp32 for
/// anything else) and takes from `decide` each layer's compute type, from
/// which its output type follows. Stops at the first failure.
mlir::LogicalResult
walkNumerics(mlir::Block &body,
             llvm::function_ref<mlir::FailureOr<Precision>(
                 LayerOpInterface layer, const std::vector<Precision> &inputs)>
                 decide);

/// Checks that every layer of `module` has a legal compute type for the
/// module's precision (the verifier of `hd.precision`).
mlir::LogicalResult verifyNumerics(mlir::ModuleOp module);

/// Gives a module the precision `program` and gradient sums in
/// `gradientSync`: every layer without a compute type gets autocast's
/// (Precision.h); one that has one keeps it where it is legal (a layer
/// kept in fp32), and is an error where not. An fp32 program without such
/// layers is left as it is. Fails with a diagnostic when the module
/// already has another precision.
mlir::LogicalResult assignNumerics(mlir::ModuleOp module, Precision program,
                                   Precision gradientSync);

} // namespace hd

#endif // HD_DIALECT_HD_IR_HDNUMERICS_H
