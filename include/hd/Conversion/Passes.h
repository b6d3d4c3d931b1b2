//===- Passes.h - hd conversion passes --------------------------*- C++ -*-===//

#ifndef HD_CONVERSION_PASSES_H
#define HD_CONVERSION_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace hd {

#define GEN_PASS_DECL
#include "hd/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "hd/Conversion/Passes.h.inc"

} // namespace hd

#endif // HD_CONVERSION_PASSES_H
