//===- ProgramEmitter.cpp - building calls of the runtime as IR -----------===//
//
// The runtime's ABI is one table (hdrt/Abi.def) that both sides read, so
// the declarations here follow it entry by entry, and a descriptor is
// emitted as the identified struct the runtime's table names, so the IR
// says which it is.
//
//===----------------------------------------------------------------------===//

#include "ProgramEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <vector>

using namespace mlir;

namespace hd {

namespace {

/// The runtime's C ABI (hdrt/Abi.def), as the IR declares it.
namespace abi {
enum Type { VOID, I32, I64, F64, PTR };

struct Function {
  const char *name;
  Type result;
  std::vector<Type> params;
};

const Function functions[] = {
#define HDRT_FUNCTION(Name, Result, ...) {#Name, Result, {__VA_ARGS__}},
#include "hdrt/Abi.def"
};
} // namespace abi

Type mlirType(MLIRContext *context, abi::Type t) {
  switch (t) {
  case abi::I32:
    return IntegerType::get(context, 32);
  case abi::I64:
    return IntegerType::get(context, 64);
  case abi::F64:
    return Float64Type::get(context);
  case abi::PTR:
    return LLVM::LLVMPointerType::get(context);
  case abi::VOID:
    break;
  }
  return {};
}

} // namespace

void declareRuntimeAbi(ModuleOp module, OpBuilder &b) {
  MLIRContext *context = module.getContext();
  b.setInsertionPointToStart(module.getBody());
  for (const abi::Function &f : abi::functions) {
    SmallVector<Type> params;
    for (abi::Type t : f.params)
      if (t != abi::VOID)
        params.push_back(mlirType(context, t));
    SmallVector<Type> results;
    if (f.result != abi::VOID)
      results.push_back(mlirType(context, f.result));
    auto decl = func::FuncOp::create(b, module.getLoc(), f.name,
                                     b.getFunctionType(params, results));
    decl.setPrivate();
  }
}

Value ProgramEmitter::i64(int64_t v) {
  Value &c = constants_[v];
  if (!c) {
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(entry_);
    c = arith::ConstantIntOp::create(b_, module_.getLoc(), v, 64);
  }
  return c;
}

Value ProgramEmitter::array(StringRef name, ArrayRef<int64_t> values) {
  SmallVector<int64_t> data(values);
  if (data.empty())
    data.push_back(0);
  auto type = RankedTensorType::get({int64_t(data.size())}, b_.getI64Type());
  auto llvmType =
      LLVM::LLVMArrayType::get(b_.getI64Type(), unsigned(data.size()));
  return global(name, llvmType, DenseElementsAttr::get(type, ArrayRef(data)));
}

Value ProgramEmitter::string(StringRef name, StringRef text) {
  std::string s = text.str();
  s.push_back('\0');
  auto type = LLVM::LLVMArrayType::get(b_.getI8Type(), unsigned(s.size()));
  return global(name, type, b_.getStringAttr(s));
}

Value ProgramEmitter::bytes(StringRef name, ArrayRef<char> bytes) {
  auto type = LLVM::LLVMArrayType::get(b_.getI8Type(), unsigned(bytes.size()));
  return global(name, type,
                b_.getStringAttr(StringRef(bytes.data(), bytes.size())));
}

Value ProgramEmitter::descriptor(StringRef name, const RuntimeLayer &layer) {
  if (layer.fields.empty())
    return null();
  // One value per field, an array of them for an array field.
  SmallVector<Type> types;
  SmallVector<Attribute> values;
  for (const RuntimeLayer::Field &f : layer.fields) {
    SmallVector<Attribute> elements;
    for (int64_t v : f.ints)
      elements.push_back(b_.getI64IntegerAttr(v));
    for (double v : f.floats)
      elements.push_back(b_.getF64FloatAttr(v));
    Type scalar = f.isFloat ? Type(b_.getF64Type()) : b_.getI64Type();
    bool single = elements.size() == 1;
    types.push_back(single ? scalar
                           : LLVM::LLVMArrayType::get(scalar, elements.size()));
    values.push_back(single ? elements.front() : b_.getArrayAttr(elements));
  }
  // Named after the runtime's struct, so the IR says which it is.
  auto type = LLVM::LLVMStructType::getIdentified(
      b_.getContext(), "hdrt." + layer.kindName + ".desc");
  if (!type.isInitialized())
    (void)type.setBody(types, /*isPacked=*/false);
  return global(name, type, b_.getArrayAttr(values));
}

Value ProgramEmitter::null() {
  return LLVM::ZeroOp::create(b_, loc_,
                              LLVM::LLVMPointerType::get(b_.getContext()));
}

Value ProgramEmitter::call(StringRef name, ArrayRef<Value> args) {
  auto callee = module_.lookupSymbol<func::FuncOp>(name);
  auto op = func::CallOp::create(b_, loc_, callee, args);
  return op.getNumResults() ? op.getResult(0) : Value();
}

Value ProgramEmitter::global(StringRef name, Type type, Attribute value) {
  LLVM::GlobalOp g;
  {
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(module_.getBody());
    g = LLVM::GlobalOp::create(b_, loc_, type, /*isConstant=*/true,
                               LLVM::Linkage::Internal, name, value);
  }
  return LLVM::AddressOfOp::create(b_, loc_, g);
}

} // namespace hd
