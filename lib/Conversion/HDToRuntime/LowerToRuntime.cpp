//===- LowerToRuntime.cpp - a partitioned graph as calls of the runtime ---===//
//
// The runtime owns the kernels, the buffers and MPI; the compiler owns the
// decisions: every layer's configuration, the plan of every transfer, the
// replica groups, and the order of the step. This pass writes those
// decisions as constants and a straight-line schedule of hdrt_* calls; the
// IR of each constant and call is ProgramEmitter's.
//
//===----------------------------------------------------------------------===//

#include "hd/Conversion/HDToRuntime/RuntimeLayer.h"
#include "hd/Conversion/Passes.h"
#include "hd/Dialect/HD/Analysis/TransferPlans.h"
#include "hd/Dialect/HD/IR/HDOps.h"

#include "ProgramEmitter.h"

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

/// The graph input an operand of the training function is: the images
/// (f32) or the labels (i32).
int64_t graphInput(Value operand) {
  auto type = cast<RankedTensorType>(operand.getType());
  return type.getElementType().isInteger(32) ? HDRT_LABELS : HDRT_IMAGES;
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
  // The search and the cost model plan mixed precision; the runtime does
  // not run it yet: say so rather than train in fp32 what was planned as
  // bf16.
  Precision precision = m.layers.graph.precision;
  if (precision != Precision::F32) {
    mlir::emitError(module.getLoc())
        << "--hd-lower-to-runtime: the module is planned in "
        << precisionName(precision) << " ('"
        << HDDialect::getPrecisionAttrName()
        << "'), and the runtime trains in fp32 only so far; "
           "plan it with precision=fp32 to run it";
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
  declareRuntimeAbi(module, b);
  ProgramEmitter e(module, b);
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
