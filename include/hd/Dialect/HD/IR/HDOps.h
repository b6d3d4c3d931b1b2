//===- HDOps.h - hd layer ops ------------------------------------*- C++ -*-===//

#ifndef HD_DIALECT_HD_IR_HDOPS_H
#define HD_DIALECT_HD_IR_HDOPS_H

#include "hd/Dialect/HD/IR/HDAttrs.h"
#include "hd/Dialect/HD/IR/HDDialect.h"
#include "hd/Dialect/HD/IR/HDInterfaces.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "hd/Dialect/HD/IR/HDOps.h.inc"

#endif // HD_DIALECT_HD_IR_HDOPS_H
