//===- HDDialect.cpp - the hd dialect -------------------------------------===//

#include "hd/Dialect/HD/IR/HDDialect.h"
#include "hd/Dialect/HD/IR/HDAttrs.h"
#include "hd/Dialect/HD/IR/HDOps.h"

#include "mlir/IR/BuiltinOps.h"

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
  if (name == getModelAttrName()) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a string";
    return success();
  }
  return op->emitError() << "unknown hd attribute '" << name << "'";
}
