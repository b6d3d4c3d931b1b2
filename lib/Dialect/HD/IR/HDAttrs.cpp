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

LogicalResult MoveAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t src, int64_t dst, ArrayRef<int64_t> lo,
                               ArrayRef<int64_t> hi) {
  if (src < 0 || dst < 0)
    return emitError() << "tasks must be >= 0, got src = " << src
                       << ", dst = " << dst;
  if (src == dst)
    return emitError() << "a move from task " << src
                       << " to itself is not a transfer";
  if (lo.size() != hi.size() || lo.empty())
    return emitError() << "lo and hi must have one entry per dimension";
  for (size_t d = 0; d < lo.size(); ++d)
    if (lo[d] < 0 || hi[d] <= lo[d])
      return emitError() << "the box is empty or negative along dim " << d
                         << ": [" << lo[d] << ", " << hi[d] << ")";
  return success();
}
