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

/// The configuration against the op's split rule (its dims, its groups).
static LogicalResult verifySplitRule(Operation *op, LayerOpInterface layer,
                                     PConfigAttr config, size_t rank) {
  SplitRule rule = layer.getSplitRule();
  ParallelConfig degreesOf{{config.getN(), config.getC()}};
  if (rank == kMaxRank)
    degreesOf.degrees.insert(
        degreesOf.degrees.end(),
        {config.getHeightDegree(), config.getWidthDegree()});
  if (int d = rule.firstForbiddenDim(degreesOf); d >= 0)
    return op->emitOpError()
           << "cannot split its " << kDimWords[d] << "; the configuration "
           << "must have " << kDimNames[d] << "=1";
  if (!rule.keepsGroupsWhole(degreesOf))
    return op->emitOpError()
           << "splits its " << rule.channelGroups << " groups in "
           << config.getC()
           << " parts; the channel degree must divide the group count";
  return success();
}

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
  auto devices =
      module
          ? module->getAttrOfType<IntegerAttr>(HDDialect::getDevicesAttrName())
          : IntegerAttr();
  if (devices && config.getNumTasks() > devices.getInt())
    return op->emitOpError()
           << "configuration " << config << " has " << config.getNumTasks()
           << " tasks but the module is compiled for " << devices.getInt()
           << " devices";
  return verifySplitRule(op, layer, config, shape.size());
}

DictionaryAttr hd::attributesButConfig(Operation *op) {
  SmallVector<NamedAttribute> attrs;
  for (StringAttr name : op->getName().getAttributeNames())
    if (name != "parallel")
      if (std::optional<Attribute> value = op->getInherentAttr(name);
          value && *value)
        attrs.push_back(NamedAttribute(name, *value));
  return DictionaryAttr::get(op->getContext(), attrs);
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
