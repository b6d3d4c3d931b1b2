//===- VerifyTransfers.cpp - the contract lowering relies on --------------===//

#include "TransferPlans.h"

#include "hd/Dialect/HD/IR/HDOps.h"
#include "hd/Dialect/HD/Transforms/Passes.h"

namespace hd {
#define GEN_PASS_DEF_VERIFYTRANSFERSPASS
#include "hd/Dialect/HD/Transforms/Passes.h.inc"
} // namespace hd

using namespace mlir;
using namespace hd;

LogicalResult hd::verifyTransfers(const ConfiguredModule &m, ModuleOp module) {
  MLIRContext *context = module.getContext();
  bool ok = true;
  for (size_t l = 0; l < m.layers.ops.size(); ++l) {
    Operation *op = m.layers.ops[l];
    const Layer &layer = m.layers.graph.layers[l];
    for (unsigned i = 0; i < layer.inputs.size(); ++i) {
      int p = layer.inputs[i].producer;
      if (p < 0)
        continue;
      std::optional<ArrayAttr> moves = planAttr(m, l, i);
      auto transfer = op->getOperand(i).getDefiningOp<TransferOp>();
      const std::string &from = m.layers.graph.layers[p].name;
      if (!transfer) {
        if (moves) {
          op->emitOpError() << "reads operand #" << i << " from '" << from
                            << "' under another configuration, without "
                            << "an hd.transfer (run --hd-insert-transfers)";
          ok = false;
        }
        continue;
      }
      if (transfer.getFrom() != toAttr(context, m.configs[p]) ||
          transfer.getTo() != toAttr(context, m.configs[l])) {
        transfer.emitOpError()
            << "moves from " << transfer.getFrom() << " to "
            << transfer.getTo() << " but '" << from << "' has "
            << toAttr(context, m.configs[p]) << " and its consumer "
            << toAttr(context, m.configs[l]);
        ok = false;
      } else if (transfer.getMoves() !=
                 moves.value_or(ArrayAttr::get(context, {}))) {
        transfer.emitOpError()
            << "has a plan that differs from the boxes the consumer "
            << "reads; re-run --hd-insert-transfers on the unplanned graph";
        ok = false;
      }
    }
    ArrayAttr groups = replicaGroupsAttr(m, l);
    SmallVector<GradSyncOp> syncs;
    for (Operation *user : op->getUsers())
      if (auto sync = dyn_cast<GradSyncOp>(user))
        syncs.push_back(sync);
    if (!groups.empty() && syncs.size() != 1) {
      op->emitOpError() << "has replicated parameters and needs exactly "
                        << "one hd.grad_sync, found " << syncs.size();
      ok = false;
    } else if (!syncs.empty() && syncs.front().getGroups() != groups) {
      syncs.front().emitOpError()
          << "groups differ from the replica groups of its layer, "
          << groups;
      ok = false;
    }
  }
  // Transfers outside the layer-to-layer edges checked above: on a graph
  // input, feeding another transfer or anything but a layer.
  module.walk([&](TransferOp transfer) {
    if (!transfer.getInput().getDefiningOp<LayerOpInterface>()) {
      transfer.emitOpError("must move a layer's output (graph inputs are "
                           "loaded where they are needed)");
      ok = false;
    }
    for (Operation *user : transfer->getUsers())
      if (!isa<LayerOpInterface>(user)) {
        transfer.emitOpError("must feed layers only, not ")
            << user->getName();
        ok = false;
      }
  });
  return success(ok);
}

namespace {

struct VerifyTransfersPass
    : public hd::impl::VerifyTransfersPassBase<VerifyTransfersPass> {
  void runOnOperation() override {
    FailureOr<ConfiguredModule> configured =
        configuredModule(getOperation(), "--hd-verify-transfers");
    if (failed(configured) || failed(verifyTransfers(*configured, getOperation())))
      signalPassFailure();
  }
};

} // namespace
