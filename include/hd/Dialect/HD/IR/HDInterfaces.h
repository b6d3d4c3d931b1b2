//===- HDInterfaces.h - LayerOpInterface ------------------------*- C++ -*-===//

#ifndef HD_DIALECT_HD_IR_HDINTERFACES_H
#define HD_DIALECT_HD_IR_HDINTERFACES_H

#include "hd/CostModel/CostKind.h"
#include "hd/Dialect/HD/IR/HDAttrs.h"
#include "hd/Tiling/ParallelConfig.h"
#include "hd/Tiling/TileBox.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

#include <string>

namespace hd {
/// Checks a layer's `parallel` configuration against its partitioned shape
/// and the module's device count.
mlir::LogicalResult verifyLayerConfig(mlir::Operation *op);

/// Every attribute of `op` but its `parallel` configuration: the default
/// runtime descriptor of a layer.
mlir::DictionaryAttr attributesButConfig(mlir::Operation *op);

/// The cost-model kind of a layer op, declared in ODS as HD_LayerOp's
/// second argument (HDOps.td) and read by LayerOpInterface::getCostKind.
template <CostKind Kind> struct CostKindTrait {
  template <typename ConcreteOp>
  class Impl : public mlir::OpTrait::TraitBase<ConcreteOp, Impl> {
  public:
    static constexpr CostKind kCostKind = Kind;
  };
};

/// A stable, human-readable layer name: the op's name location (the ONNX node
/// name after import), else "<op>@<line>" from a file location.
std::string getLayerName(mlir::Operation *op);
} // namespace hd

#include "hd/Dialect/HD/IR/HDInterfaces.h.inc"

#endif // HD_DIALECT_HD_IR_HDINTERFACES_H
