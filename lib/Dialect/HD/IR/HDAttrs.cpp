//===- HDAttrs.cpp - hd attributes and enums ------------------------------===//

#include "hd/Dialect/HD/IR/HDAttrs.h"
#include "hd/Dialect/HD/IR/HDDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace hd;

#include "hd/Dialect/HD/IR/HDEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "hd/Dialect/HD/IR/HDAttrs.cpp.inc"

LogicalResult PConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t n, int64_t c,
                                  std::optional<int64_t> h,
                                  std::optional<int64_t> w) {
  auto check = [&](StringRef dim, std::optional<int64_t> degree) {
    if (degree && *degree < 1)
      return emitError() << "degree " << dim << "=" << *degree
                         << " must be at least 1",
             failure();
    return success();
  };
  return success(succeeded(check("n", n)) && succeeded(check("c", c)) &&
                 succeeded(check("h", h)) && succeeded(check("w", w)));
}

void HDDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "hd/Dialect/HD/IR/HDAttrs.cpp.inc"
      >();
}
