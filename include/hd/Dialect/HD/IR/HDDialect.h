//===- HDDialect.h - the hd dialect ------------------------------*- C++ -*-===//

#ifndef HD_DIALECT_HD_IR_HDDIALECT_H
#define HD_DIALECT_HD_IR_HDDIALECT_H

#include "mlir/IR/Dialect.h"

#include "hd/Dialect/HD/IR/HDOpsDialect.h.inc"

#endif // HD_DIALECT_HD_IR_HDDIALECT_H
