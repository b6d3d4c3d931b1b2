//===- LowerToRuntime.cpp - a partitioned graph as calls of the runtime ---===//
//
// The runtime owns the kernels, the buffers and MPI; the compiler owns the
// decisions: every layer's configuration, the plan of every transfer, the
// replica groups, and the order of the step. This pass writes those
// decisions as constants and a straight-line schedule of hdrt_* calls.
//
//===----------------------------------------------------------------------===//

#include "hd/Conversion/HDToRuntime/RuntimeLayer.h"
#include "hd/Conversion/Passes.h"
#include "hd/Dialect/HD/Analysis/TransferPlans.h"
#include "hd/Dialect/HD/IR/HDOps.h"

#include "hdrt/LayerTable.h"
#include "hdrt/hdrt.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"

namespace hd {
#define GEN_PASS_DEF_LOWERTORUNTIMEPASS
#include "hd/Conversion/Passes.h.inc"
} // namespace hd

using namespace mlir;
using namespace hd;

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

/// The graph input an operand of the training function is: the images
/// (f32) or the labels (i32).
int64_t graphInput(Value operand) {
  auto type = cast<RankedTensorType>(operand.getType());
  return type.getElementType().isInteger(32) ? HDRT_LABELS : HDRT_IMAGES;
}

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

/// Declares every hdrt_* function in `module`.
void declareAbi(ModuleOp module, OpBuilder &b) {
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

/// The source tensors of a layer's parameters as hdrt_define_tensors takes
/// them (Abi.def), or nothing when the layer has none.
std::optional<std::string> tensorsText(Operation *op) {
  auto tensors =
      op->getAttrOfType<DictionaryAttr>(HDDialect::getTensorsAttrName());
  if (!tensors)
    return std::nullopt;
  auto transposed =
      op->getAttrOfType<ArrayAttr>(HDDialect::getTransposedTensorsAttrName());
  std::string text;
  for (NamedAttribute entry : tensors) {
    text +=
        entry.getName().str() + "\t" + cast<StringAttr>(entry.getValue()).str();
    if (transposed && llvm::is_contained(transposed, entry.getName()))
      text += "\ttransposed";
    text += "\n";
  }
  return text;
}

//===----------------------------------------------------------------------===//
// Emitting the program
//===----------------------------------------------------------------------===//

/// Builds @main: constants as globals, calls in schedule order.
class Emitter {
public:
  Emitter(ModuleOp module, OpBuilder &b) : module_(module), b_(b) {}

  /// Integer constants, one per value at the top of @main, so calls read
  /// `call @hdrt_forward(%c3_i64)`.
  Value i64(int64_t v) {
    Value &c = constants_[v];
    if (!c) {
      OpBuilder::InsertionGuard guard(b_);
      b_.setInsertionPointToStart(entry_);
      c = arith::ConstantIntOp::create(b_, module_.getLoc(), v, 64);
    }
    return c;
  }

  /// A constant global array of i64 (at least one element, so a present
  /// but empty list is not a null pointer) and its address.
  Value array(StringRef name, ArrayRef<int64_t> values) {
    SmallVector<int64_t> data(values);
    if (data.empty())
      data.push_back(0);
    auto type = RankedTensorType::get({int64_t(data.size())}, b_.getI64Type());
    auto llvmType =
        LLVM::LLVMArrayType::get(b_.getI64Type(), unsigned(data.size()));
    return global(name, llvmType, DenseElementsAttr::get(type, ArrayRef(data)));
  }

  /// A NUL-terminated constant string and its address.
  Value string(StringRef name, StringRef text) {
    std::string s = text.str();
    s.push_back('\0');
    auto type = LLVM::LLVMArrayType::get(b_.getI8Type(), unsigned(s.size()));
    return global(name, type, b_.getStringAttr(s));
  }

  /// A constant global of `bytes` as they are (no terminator), and its
  /// address.
  Value bytes(StringRef name, ArrayRef<char> bytes) {
    auto type =
        LLVM::LLVMArrayType::get(b_.getI8Type(), unsigned(bytes.size()));
    return global(name, type,
                  b_.getStringAttr(StringRef(bytes.data(), bytes.size())));
  }

  /// A layer's descriptor as a constant of the runtime's struct, and its
  /// address; null for a kind without fields.
  Value descriptor(StringRef name, const RuntimeLayer &layer) {
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
      types.push_back(
          single ? scalar : LLVM::LLVMArrayType::get(scalar, elements.size()));
      values.push_back(single ? elements.front() : b_.getArrayAttr(elements));
    }
    // Named after the runtime's struct, so the IR says which it is.
    auto type = LLVM::LLVMStructType::getIdentified(
        b_.getContext(), "hdrt." + layer.kindName + ".desc");
    if (!type.isInitialized())
      (void)type.setBody(types, /*isPacked=*/false);
    return global(name, type, b_.getArrayAttr(values));
  }

  Value null() {
    return LLVM::ZeroOp::create(b_, loc_,
                                LLVM::LLVMPointerType::get(b_.getContext()));
  }

  Value call(StringRef name, ArrayRef<Value> args) {
    auto callee = module_.lookupSymbol<func::FuncOp>(name);
    auto op = func::CallOp::create(b_, loc_, callee, args);
    return op.getNumResults() ? op.getResult(0) : Value();
  }

  void setLoc(Location loc) { loc_ = loc; }
  void setEntry(Block *entry) { entry_ = entry; }

private:
  /// Globals go at the top of the module; their names are unique by
  /// construction (layer and edge numbers).
  Value global(StringRef name, Type type, Attribute value) {
    LLVM::GlobalOp g;
    {
      OpBuilder::InsertionGuard guard(b_);
      b_.setInsertionPointToStart(module_.getBody());
      g = LLVM::GlobalOp::create(b_, loc_, type, /*isConstant=*/true,
                                 LLVM::Linkage::Internal, name, value);
    }
    return LLVM::AddressOfOp::create(b_, loc_, g);
  }

  ModuleOp module_;
  OpBuilder &b_;
  Block *entry_ = nullptr;
  llvm::DenseMap<int64_t, Value> constants_;
  Location loc_ = UnknownLoc::get(module_.getContext());
};

struct LowerToRuntimePass
    : public hd::impl::LowerToRuntimePassBase<LowerToRuntimePass> {
  void runOnOperation() override;
};

void LowerToRuntimePass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<ConfiguredModule> configured =
      configuredModule(module, "--hd-lower-to-runtime");
  if (failed(configured) || failed(verifyTransfers(*configured, module)))
    return signalPassFailure();
  ConfiguredModule &m = *configured;
  std::vector<LayerOpInterface> &ops = m.layers.ops;
  if (ops.empty() || ops.back().getCostKind() != CostKind::Loss) {
    module.emitError("--hd-lower-to-runtime needs a training graph that ends "
                     "with hd.softmax_cross_entropy (import without "
                     "--no-loss)");
    return signalPassFailure();
  }
  auto train = ops.front()->getParentOfType<func::FuncOp>();
  if (train.getNumArguments() != 2 ||
      graphInput(train.getArgument(0)) != HDRT_IMAGES ||
      graphInput(train.getArgument(1)) != HDRT_LABELS) {
    train.emitOpError("must take (images, labels) to be lowered to the "
                      "runtime");
    return signalPassFailure();
  }
  // The names the lowering adds must be free.
  for (Operation &op : *module.getBody()) {
    auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (!name || &op == train.getOperation())
      continue;
    if (name.getValue() == "main" || name.getValue().starts_with("hd_") ||
        name.getValue().starts_with("hdrt_")) {
      op.emitError() << "'" << name.getValue()
                     << "' is a name --hd-lower-to-runtime defines; rename it";
      return signalPassFailure();
    }
  }
  std::vector<RuntimeLayer> runtimeLayers;
  for (LayerOpInterface op : ops) {
    FailureOr<RuntimeLayer> layer = runtimeLayer(op);
    if (failed(layer))
      return signalPassFailure();
    runtimeLayers.push_back(std::move(*layer));
  }

  MLIRContext *context = &getContext();
  OpBuilder b(context);
  declareAbi(module, b);
  Emitter e(module, b);
  b.setInsertionPointToEnd(module.getBody());
  auto ptrType = LLVM::LLVMPointerType::get(context);
  auto main = func::FuncOp::create(
      b, train.getLoc(), "hd_main_tmp",
      b.getFunctionType({b.getI32Type(), ptrType}, {b.getI32Type()}));
  Block *entry = main.addEntryBlock();
  b.setInsertionPointToStart(entry);
  e.setEntry(entry);
  e.setLoc(train.getLoc());

  int64_t devices =
      cast<IntegerAttr>(module->getAttr(HDDialect::getDevicesAttrName()))
          .getInt();
  e.call("hdrt_init",
         {entry->getArgument(0), entry->getArgument(1), e.i64(devices),
          e.string("hd_model_name", m.layers.graph.model),
          e.string("hd_model_hash", m.layers.graph.modelHash),
          e.i64(hdrt::kTablesFingerprint)});
  if (auto source = module->getAttrOfType<DenseResourceElementsAttr>(
          HDDialect::getSourceAttrName()))
    if (AsmResourceBlob *blob = source.getRawHandle().getBlob())
      e.call("hdrt_define_source", {e.bytes("hd_source", blob->getData()),
                                    e.i64(int64_t(blob->getData().size()))});

  // Definitions: layers, then edges (one per operand), then replica groups.
  for (size_t l = 0; l < ops.size(); ++l) {
    const Layer &layer = m.layers.graph.layers[l];
    e.setLoc(ops[l]->getLoc());
    std::string prefix = "hd_layer" + std::to_string(l);
    const RuntimeLayer &runtime = runtimeLayers[l];
    e.call("hdrt_define_layer",
           {e.i64(l), e.i64(runtime.kind),
            e.string(prefix + "_name", layer.name),
            e.i64(int64_t(layer.shape.size())),
            e.array(prefix + "_shape", layer.shape),
            e.array(prefix + "_degrees", m.configs[l].degrees),
            e.i64(ops[l]->getNumOperands()),
            e.descriptor(prefix + "_desc", runtime),
            e.i64(int64_t(8 * runtime.words().size()))});
    if (std::optional<std::string> text = tensorsText(ops[l]))
      e.call("hdrt_define_tensors",
             {e.i64(l), e.string(prefix + "_tensors", *text)});
  }
  // edges[l][i]: the edge of operand i of layer l, and whether it is an
  // explicit transfer.
  std::vector<std::vector<std::pair<int64_t, bool>>> edges(ops.size());
  int64_t nextEdge = 0;
  for (size_t l = 0; l < ops.size(); ++l) {
    e.setLoc(ops[l]->getLoc());
    for (unsigned i = 0; i < ops[l]->getNumOperands(); ++i) {
      Value operand = ops[l]->getOperand(i);
      auto transfer = operand.getDefiningOp<TransferOp>();
      int producer = m.layers.graph.layers[l].inputs[i].producer;
      int64_t source = producer >= 0 ? producer : graphInput(operand);
      auto type = cast<RankedTensorType>(operand.getType());
      std::string prefix = "hd_edge" + std::to_string(nextEdge);
      Value moves = e.null();
      int64_t moveCount = 0;
      if (transfer) {
        SmallVector<int64_t> flat;
        for (Attribute a : transfer.getMoves()) {
          auto move = cast<MoveAttr>(a);
          flat.push_back(move.getSrc());
          flat.push_back(move.getDst());
          flat.append(move.getLo().begin(), move.getLo().end());
          flat.append(move.getHi().begin(), move.getHi().end());
          ++moveCount;
        }
        moves = e.array(prefix + "_moves", flat);
      }
      e.call("hdrt_define_edge", {e.i64(nextEdge), e.i64(l), e.i64(i),
                                  e.i64(source), e.i64(type.getRank()),
                                  e.array(prefix + "_shape", type.getShape()),
                                  moves, e.i64(moveCount)});
      edges[l].push_back({nextEdge++, bool(transfer)});
    }
  }
  std::vector<bool> synced(ops.size(), false);
  for (size_t l = 0; l < ops.size(); ++l)
    for (Operation *user : ops[l]->getUsers())
      if (auto sync = dyn_cast<GradSyncOp>(user)) {
        e.setLoc(sync.getLoc());
        SmallVector<int64_t> flat;
        for (Attribute g : sync.getGroups()) {
          ArrayRef<int64_t> members = cast<DenseI64ArrayAttr>(g).asArrayRef();
          flat.push_back(int64_t(members.size()));
          flat.append(members.begin(), members.end());
        }
        e.call("hdrt_define_grad_sync",
               {e.i64(l),
                e.array("hd_sync" + std::to_string(l) + "_groups", flat),
                e.i64(int64_t(flat.size()))});
        synced[l] = true;
      }
  e.setLoc(train.getLoc());
  e.call("hdrt_prepare", {});

  // The training loop.
  Value first = e.call("hdrt_first_step", {});
  Value last = e.call("hdrt_last_step", {});
  auto loop = scf::ForOp::create(b, train.getLoc(), first, last, e.i64(1));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value step = loop.getInductionVar();
    e.call("hdrt_step_begin", {step});
    for (size_t l = 0; l < ops.size(); ++l) {
      e.setLoc(ops[l]->getLoc());
      for (auto [edge, isTransfer] : edges[l])
        if (isTransfer)
          e.call("hdrt_transfer_forward", {e.i64(edge)});
      e.call("hdrt_forward", {e.i64(l)});
    }
    for (size_t l = ops.size(); l-- > 0;) {
      e.setLoc(ops[l]->getLoc());
      e.call("hdrt_backward", {e.i64(l)});
      for (auto [edge, isTransfer] : llvm::reverse(edges[l]))
        if (isTransfer)
          e.call("hdrt_transfer_backward", {e.i64(edge)});
      if (synced[l])
        e.call("hdrt_grad_sync", {e.i64(l)});
    }
    // Updates in the order the gradient sums started (backward order): each
    // waits for its own, and the first ones are done first.
    for (size_t l = ops.size(); l-- > 0;)
      if (m.layers.graph.layers[l].params > 0) {
        e.setLoc(ops[l]->getLoc());
        e.call("hdrt_sgd_update", {e.i64(l)});
      }
    e.setLoc(train.getLoc());
    e.call("hdrt_step_end", {step});
  }
  Value rc = e.call("hdrt_finalize", {});
  func::ReturnOp::create(b, train.getLoc(), rc);

  // The training function is now the program.
  train.erase();
  main.setSymName("main");
}

} // namespace
