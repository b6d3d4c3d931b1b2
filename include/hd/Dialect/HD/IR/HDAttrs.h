//===- HDAttrs.h - hd attributes and enums ----------------------*- C++ -*-===//

#ifndef HD_DIALECT_HD_IR_HDATTRS_H
#define HD_DIALECT_HD_IR_HDATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "hd/Dialect/HD/IR/HDEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "hd/Dialect/HD/IR/HDAttrs.h.inc"

#endif // HD_DIALECT_HD_IR_HDATTRS_H
