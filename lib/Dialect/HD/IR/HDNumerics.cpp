//===- HDNumerics.cpp - the precision of a module and its layers ----------===//

#include "hd/Dialect/HD/IR/HDNumerics.h"
#include "hd/Dialect/HD/IR/HDDialect.h"
#include "hd/Dialect/HD/IR/HDOps.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace hd {

std::optional<Precision> precisionOf(Type type) {
  if (type.isF32())
    return Precision::F32;
  if (type.isBF16())
    return Precision::BF16;
  if (type.isF16())
    return Precision::F16;
  return std::nullopt;
}

Type typeOf(MLIRContext *context, Precision precision) {
  switch (precision) {
  case Precision::BF16:
    return BFloat16Type::get(context);
  case Precision::F16:
    return Float16Type::get(context);
  case Precision::F32:
    break;
  }
  return Float32Type::get(context);
}

static Precision precisionAttr(Operation *op, StringRef name) {
  auto attr = op->getAttrOfType<TypeAttr>(name);
  std::optional<Precision> p =
      attr ? precisionOf(attr.getValue()) : std::nullopt;
  return p.value_or(Precision::F32);
}

Precision modulePrecision(ModuleOp module) {
  return precisionAttr(module, HDDialect::getPrecisionAttrName());
}

Precision gradientSyncPrecision(ModuleOp module) {
  return precisionAttr(module, HDDialect::getGradSyncAttrName());
}

std::optional<Precision> layerComputeType(Operation *op) {
  auto attr = op->getAttrOfType<TypeAttr>(HDDialect::getComputeTypeAttrName());
  return attr ? precisionOf(attr.getValue()) : std::nullopt;
}

LogicalResult
walkNumerics(Block &body,
             function_ref<FailureOr<Precision>(LayerOpInterface,
                                               const std::vector<Precision> &)>
                 decide) {
  llvm::DenseMap<Value, Precision> typeOfValue;
  auto typeOfOperand = [&](Value v) {
    auto it = typeOfValue.find(v);
    return it == typeOfValue.end() ? Precision::F32 : it->second;
  };
  for (Operation &op : body) {
    if (auto transfer = dyn_cast<TransferOp>(op)) {
      typeOfValue[transfer.getOutput()] = typeOfOperand(transfer.getInput());
      continue;
    }
    auto layer = dyn_cast<LayerOpInterface>(op);
    if (!layer)
      continue;
    std::vector<Precision> inputs;
    for (Value v : op.getOperands())
      inputs.push_back(typeOfOperand(v));
    FailureOr<Precision> compute = decide(layer, inputs);
    if (failed(compute))
      return failure();
    for (Value result : op.getResults())
      typeOfValue[result] =
          layerNumerics(layer.getCostKind(), inputs, *compute).output;
  }
  return success();
}

/// walkNumerics over every function body of `module`.
static LogicalResult walkModuleNumerics(
    ModuleOp module,
    function_ref<FailureOr<Precision>(LayerOpInterface,
                                      const std::vector<Precision> &)>
        decide) {
  for (Operation &op : module.getBody()->getOperations())
    for (Region &region : op.getRegions())
      for (Block &block : region)
        if (failed(walkNumerics(block, decide)))
          return failure();
  return success();
}

/// `compute` where a layer reading `inputs` may compute in it; else an error
/// on the layer.
static FailureOr<Precision>
legalComputeType(LayerOpInterface layer, const std::vector<Precision> &inputs,
                 Precision program, Precision compute) {
  if (std::optional<std::string> wrong =
          checkComputeType(layer.getCostKind(), inputs, program, compute)) {
    layer->emitError() << "'" << HDDialect::getComputeTypeAttrName() << "' "
                       << *wrong;
    return failure();
  }
  return compute;
}

LogicalResult verifyNumerics(ModuleOp module) {
  Precision program = modulePrecision(module);
  return walkModuleNumerics(
      module,
      [&](LayerOpInterface layer,
          const std::vector<Precision> &inputs) -> FailureOr<Precision> {
        std::optional<Precision> compute = layerComputeType(layer);
        if (!compute) {
          layer->emitError()
              << "has no '" << HDDialect::getComputeTypeAttrName()
              << "' in a module of precision " << precisionName(program)
              << " ('" << HDDialect::getPrecisionAttrName() << "')";
          return failure();
        }
        return legalComputeType(layer, inputs, program, *compute);
      });
}

LogicalResult assignNumerics(ModuleOp module, Precision program,
                             Precision gradientSync) {
  MLIRContext *context = module.getContext();
  StringRef precisionAttr = HDDialect::getPrecisionAttrName();
  if (module->hasAttr(precisionAttr) && modulePrecision(module) != program)
    return mlir::emitError(module.getLoc())
           << "the module is in " << precisionName(modulePrecision(module))
           << " ('" << precisionAttr << "'); it cannot be planned in "
           << precisionName(program);
  // An fp32 program records nothing unless a layer already has a type.
  bool annotate = program != Precision::F32;
  if (failed(walkModuleNumerics(
          module,
          [&](LayerOpInterface layer,
              const std::vector<Precision> &inputs) -> FailureOr<Precision> {
            if (std::optional<Precision> kept = layerComputeType(layer))
              return legalComputeType(layer, inputs, program, *kept);
            Precision compute =
                layerNumerics(layer.getCostKind(), inputs, program).compute;
            if (annotate)
              layer->setAttr(HDDialect::getComputeTypeAttrName(),
                             TypeAttr::get(typeOf(context, compute)));
            return compute;
          })))
    return failure();
  if (annotate)
    module->setAttr(precisionAttr, TypeAttr::get(typeOf(context, program)));
  if (gradientSync != Precision::F32)
    module->setAttr(HDDialect::getGradSyncAttrName(),
                    TypeAttr::get(typeOf(context, gradientSync)));
  return success();
}

} // namespace hd
