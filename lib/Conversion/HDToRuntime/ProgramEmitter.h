//===- ProgramEmitter.h - building calls of the runtime as IR ---*- C++ -*-===//
//
// What the lowering writes, below the level of its decisions: the
// declarations of the runtime's C ABI, and @main's constants (integers,
// arrays, strings, layer descriptors as the runtime's structs) and calls.
// Private to the lowering.
//
//===----------------------------------------------------------------------===//

#ifndef HD_LIB_CONVERSION_HDTORUNTIME_PROGRAMEMITTER_H
#define HD_LIB_CONVERSION_HDTORUNTIME_PROGRAMEMITTER_H

#include "hd/Conversion/HDToRuntime/RuntimeLayer.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

namespace hd {

/// Declares every hdrt_* function (hdrt/Abi.def) in `module`.
void declareRuntimeAbi(mlir::ModuleOp module, mlir::OpBuilder &b);

/// Builds @main: constants as globals, calls in schedule order.
class ProgramEmitter {
public:
  ProgramEmitter(mlir::ModuleOp module, mlir::OpBuilder &b)
      : module_(module), b_(b) {}

  /// Integer constants, one per value at the top of @main, so calls read
  /// `call @hdrt_forward(%c3_i64)`.
  mlir::Value i64(int64_t v);
  /// A constant global array of i64 (at least one element, so a present
  /// but empty list is not a null pointer) and its address.
  mlir::Value array(llvm::StringRef name, llvm::ArrayRef<int64_t> values);
  /// A NUL-terminated constant string and its address.
  mlir::Value string(llvm::StringRef name, llvm::StringRef text);
  /// A constant global of `bytes` as they are (no terminator), and its
  /// address.
  mlir::Value bytes(llvm::StringRef name, llvm::ArrayRef<char> bytes);
  /// A layer's descriptor as a constant of the runtime's struct, and its
  /// address; null for a kind without fields.
  mlir::Value descriptor(llvm::StringRef name, const RuntimeLayer &layer);
  mlir::Value null();
  mlir::Value call(llvm::StringRef name, llvm::ArrayRef<mlir::Value> args);

  void setLoc(mlir::Location loc) { loc_ = loc; }
  void setEntry(mlir::Block *entry) { entry_ = entry; }

private:
  /// Globals go at the top of the module; their names are unique by
  /// construction (layer and edge numbers).
  mlir::Value global(llvm::StringRef name, mlir::Type type,
                     mlir::Attribute value);

  mlir::ModuleOp module_;
  mlir::OpBuilder &b_;
  mlir::Block *entry_ = nullptr;
  llvm::DenseMap<int64_t, mlir::Value> constants_;
  mlir::Location loc_ = mlir::UnknownLoc::get(module_.getContext());
};

} // namespace hd

#endif // HD_LIB_CONVERSION_HDTORUNTIME_PROGRAMEMITTER_H
