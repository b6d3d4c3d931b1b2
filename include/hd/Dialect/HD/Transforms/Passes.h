//===- Passes.h - hd transformation passes ----------------------*- C++ -*-===//

#ifndef HD_DIALECT_HD_TRANSFORMS_PASSES_H
#define HD_DIALECT_HD_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace hd {

#define GEN_PASS_DECL
#include "hd/Dialect/HD/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "hd/Dialect/HD/Transforms/Passes.h.inc"

} // namespace hd

#endif // HD_DIALECT_HD_TRANSFORMS_PASSES_H
