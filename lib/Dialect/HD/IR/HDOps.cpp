//===- HDOps.cpp - the op classes TableGen generates ----------------------===//
//
// The definitions HDOps.td generates, compiled once here. What each op adds
// by hand (its verifier, its input boxes, its counts) lives with its family:
// WindowOps.cpp (conv2d, pool2d), DenseOps.cpp (flatten, linear),
// NormalizationOps.cpp (batch norm, layer norm, the loss),
// ElementwiseOps.cpp, LayoutOps.cpp (concat, slice, shuffle) and
// TransferOps.cpp (transfer, grad_sync).
//
//===----------------------------------------------------------------------===//

#include "hd/Dialect/HD/IR/HDOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace hd;

#define GET_OP_CLASSES
#include "hd/Dialect/HD/IR/HDOps.cpp.inc"
