//===- HDDialect.cpp - the hd dialect -------------------------------------===//

#include "hd/Dialect/HD/IR/HDDialect.h"
#include "hd/Dialect/HD/IR/HDAttrs.h"
#include "hd/Dialect/HD/IR/HDNumerics.h"
#include "hd/Dialect/HD/IR/HDOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;
using namespace hd;

#include "hd/Dialect/HD/IR/HDOpsDialect.cpp.inc"

void HDDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "hd/Dialect/HD/IR/HDOps.cpp.inc"
      >();
}

LogicalResult HDDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == getDevicesAttrName()) {
    if (!isa<ModuleOp>(op))
      return op->emitError() << "'" << name << "' belongs on the module";
    auto count = dyn_cast<IntegerAttr>(attr.getValue());
    if (!count || count.getInt() < 1 || count.getInt() > kMaxDevices)
      return op->emitError() << "'" << name << "' must be a device count "
                             << "from 1 to " << kMaxDevices;
    return success();
  }
  if (name == getPrecisionAttrName() || name == getGradSyncAttrName() ||
      name == getComputeTypeAttrName()) {
    auto type = dyn_cast<TypeAttr>(attr.getValue());
    std::optional<Precision> precision =
        type ? precisionOf(type.getValue()) : std::nullopt;
    if (!precision)
      return op->emitError() << "'" << name << "' must be f32, bf16 or f16";
    if (name == getComputeTypeAttrName()) {
      // The module's verifier checks the type against the layer's rule.
      if (!isa<LayerOpInterface>(op))
        return op->emitError() << "'" << name << "' belongs on a layer";
      auto module = op->getParentOfType<ModuleOp>();
      if (*precision != Precision::F32 &&
          (!module || !module->hasAttr(getPrecisionAttrName())))
        return op->emitError()
               << "'" << name << "' is " << precisionTypeName(*precision)
               << " in a module without '" << getPrecisionAttrName() << "'";
      return success();
    }
    auto module = dyn_cast<ModuleOp>(op);
    if (!module)
      return op->emitError() << "'" << name << "' belongs on the module";
    if (name == getGradSyncAttrName()) {
      if (*precision == Precision::F16)
        return op->emitError() << "'" << name << "' must be f32 or bf16: "
                               << "fp16 gradients would overflow their sum";
      if (*precision == Precision::BF16 &&
          modulePrecision(module) != Precision::BF16)
        return op->emitError()
               << "'" << name << "' is bf16 in a module "
               << "whose '" << getPrecisionAttrName() << "' is not bf16";
      return success();
    }
    return verifyNumerics(module);
  }
  if (name == getModelAttrName()) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a string";
    return success();
  }
  if (name == getSourceAttrName()) {
    if (!isa<ModuleOp>(op))
      return op->emitError() << "'" << name << "' belongs on the module";
    auto source = dyn_cast<DenseResourceElementsAttr>(attr.getValue());
    if (!source || !source.getType().getElementType().isInteger(8) ||
        source.getType().getRank() != 1)
      return op->emitError() << "'" << name << "' must be the bytes of an "
                             << "ONNX model, a dense_resource of i8";
    return success();
  }
  if (name == getTensorsAttrName()) {
    auto layer = dyn_cast<LayerOpInterface>(op);
    auto tensors = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!layer || !tensors)
      return op->emitError() << "'" << name << "' must be a dictionary on a "
                             << "layer, from a parameter's name to the "
                             << "tensor that holds it";
    for (NamedAttribute entry : tensors)
      if (!isa<StringAttr>(entry.getValue()))
        return op->emitError()
               << "'" << name << "' entry '" << entry.getName().getValue()
               << "' must name a tensor (a string)";
    return success();
  }
  if (name == getTransposedTensorsAttrName()) {
    auto tensors = op->getAttrOfType<DictionaryAttr>(getTensorsAttrName());
    auto names = dyn_cast<ArrayAttr>(attr.getValue());
    if (!tensors || !names)
      return op->emitError() << "'" << name << "' must list entries of '"
                             << getTensorsAttrName() << "'";
    for (Attribute entry : names) {
      auto param = dyn_cast<StringAttr>(entry);
      if (!param || !tensors.get(param))
        return op->emitError()
               << "'" << name << "' lists " << entry << ", which '"
               << getTensorsAttrName() << "' does not name";
    }
    return success();
  }
  return op->emitError() << "unknown hd attribute '" << name << "'";
}
