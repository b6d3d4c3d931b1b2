//===- HDInterfaces.h - LayerOpInterface ------------------------*- C++ -*-===//

#ifndef HD_DIALECT_HD_IR_HDINTERFACES_H
#define HD_DIALECT_HD_IR_HDINTERFACES_H

#include "hd/Dialect/HD/IR/HDAttrs.h"
#include "hd/Tiling/TileBox.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

#include <string>

namespace hd {
/// Checks a layer's `parallel` configuration against its partitioned shape
/// and the module's device count.
mlir::LogicalResult verifyLayerConfig(mlir::Operation *op);

/// A stable, human-readable layer name: the op's name location (the ONNX node
/// name after import), else "<op>@<line>" from a file location.
std::string getLayerName(mlir::Operation *op);
} // namespace hd

#include "hd/Dialect/HD/IR/HDInterfaces.h.inc"

#endif // HD_DIALECT_HD_IR_HDINTERFACES_H
