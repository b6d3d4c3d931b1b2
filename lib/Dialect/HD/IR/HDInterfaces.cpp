//===- HDInterfaces.cpp - LayerOpInterface and its config verifier --------===//

#include "hd/Dialect/HD/IR/HDInterfaces.h"
#include "hd/Dialect/HD/IR/HDDialect.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace hd;

#include "hd/Dialect/HD/IR/HDInterfaces.cpp.inc"

static const char *const kDimNames[] = {"n", "c", "h", "w"};
static const char *const kDimWords[] = {"batch size", "channels", "height",
                                        "width"};

LogicalResult hd::verifyLayerConfig(Operation *op) {
  auto layer = cast<LayerOpInterface>(op);
  PConfigAttr config = layer.getParallelConfig();
  if (!config)
    return success();
  ArrayRef<int64_t> shape = layer.getPartitionedShape();
  std::optional<int64_t> degrees[] = {config.getN(), config.getC(),
                                      config.getH(), config.getW()};
  for (unsigned d = shape.size(); d < kMaxRank; ++d)
    if (degrees[d])
      return op->emitOpError()
             << "splits only n and c (its output is " << shape.size()
             << "-D); remove " << kDimNames[d] << "=" << *degrees[d]
             << " from the configuration";
  for (unsigned d = 0; d < shape.size() && d < kMaxRank; ++d) {
    int64_t degree = degrees[d].value_or(1);
    if (degree > shape[d])
      return op->emitOpError()
             << "degree " << kDimNames[d] << "=" << degree << " exceeds "
             << kDimWords[d] << " " << shape[d]
             << " of its output; the largest legal degree is " << shape[d];
  }
  auto module = op->getParentOfType<ModuleOp>();
  if (!module)
    return success();
  auto devices =
      module->getAttrOfType<IntegerAttr>(HDDialect::getDevicesAttrName());
  if (devices && config.getNumTasks() > devices.getInt())
    return op->emitOpError()
           << "configuration " << config << " has " << config.getNumTasks()
           << " tasks but the module is compiled for " << devices.getInt()
           << " devices";
  return success();
}

std::string hd::getLayerName(Operation *op) {
  Location loc = op->getLoc();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (isa<NameLoc>(inner)) {
        loc = inner;
        break;
      }
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  std::string opName = op->getName().stripDialect().str();
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return opName + "@" + std::to_string(file.getLine());
  return opName;
}
