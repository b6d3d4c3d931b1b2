//===- Patterns.h - the table of ONNX import patterns -----------*- C++ -*-===//
//
// Each op family (convolution, pooling, ...) lives in its own file with the
// patterns that import it, and adds them to one table keyed by ONNX op_type
// through its add*Patterns function. So supporting a new family is a new file
// and one line in buildPatternTable, and the driver never names an op type.
//
//===----------------------------------------------------------------------===//

#ifndef HD_LIB_IMPORT_ONNX_PATTERNS_H
#define HD_LIB_IMPORT_ONNX_PATTERNS_H

#include "ImportContext.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h>

namespace hd::onnx_import {

/// Imports `node`: defines its first output through `ctx` and succeeds, or
/// fails (with a reason reported through ctx.fail, unless an input's producer
/// already reported one). The driver has checked that the node has a first
/// output, its attribute types and its domain.
using ImportPattern = mlir::LogicalResult (*)(const onnx::NodeProto &node,
                                              ImportContext &ctx);

/// The pattern for each supported op_type.
using PatternTable = llvm::StringMap<ImportPattern>;

void addActivationPatterns(PatternTable &table);
void addConvPatterns(PatternTable &table);
void addElementwisePatterns(PatternTable &table);
void addLinearPatterns(PatternTable &table);
void addNormalizationPatterns(PatternTable &table);
void addPoolPatterns(PatternTable &table);
void addShapePatterns(PatternTable &table);
void addShapeArithmeticPatterns(PatternTable &table);
void addLayoutPatterns(PatternTable &table);
void addChannelsLastPatterns(PatternTable &table);

/// x * f(x) for an activation f that exporters write so (SiLU, hard
/// swish), as one hd.activation; fails, reporting nothing, for any other
/// product. `a` and `b` are the node's two inputs.
mlir::FailureOr<mlir::Value> fuseActivationProduct(const onnx::NodeProto &node,
                                                   ImportContext &ctx,
                                                   mlir::Value a,
                                                   mlir::Value b);

/// Computes `node` at import when it is shape arithmetic (Gather,
/// Unsqueeze, Concat, Div, ... of integer constants, as exporters compute
/// reshape targets from Shape), defining its output as a constant; nullopt
/// when it is not, and the node is imported as a layer.
std::optional<mlir::LogicalResult>
foldShapeArithmetic(const onnx::NodeProto &node, ImportContext &ctx);

/// The exact GELU as exporters write it before opset 20,
/// x * (1 + erf(x / sqrt(2))) * 0.5, matched from its Div, as one
/// hd.activation; x may be channels-last (ConvNeXt's), and the activation
/// is then computed on its source. nullopt when `node` does not start
/// that chain.
std::optional<mlir::LogicalResult>
importErfGelu(const onnx::NodeProto &node, ImportContext &ctx);

/// The axes a ReduceMean averages: an attribute, or (opset 18) a constant
/// input.
mlir::FailureOr<Shape> getReduceAxes(const onnx::NodeProto &node,
                                     ImportContext &ctx);

/// The layer-norm chain that starts at `mean`, a ReduceMean of the
/// channels-last `x`, as one hd.layer_norm (ChannelsLastPatterns.cpp).
mlir::LogicalResult importLayerNormChain(const onnx::NodeProto &mean,
                                         ImportContext &ctx, mlir::Value x);

/// Every family's patterns.
PatternTable buildPatternTable();

} // namespace hd::onnx_import

#endif // HD_LIB_IMPORT_ONNX_PATTERNS_H
