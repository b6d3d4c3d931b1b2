//===- InsertTransfers.cpp - explicit transfers and gradient syncs --------===//

#include "hd/Dialect/HD/Analysis/TransferPlans.h"

#include "hd/Dialect/HD/IR/HDOps.h"
#include "hd/Dialect/HD/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace hd {
#define GEN_PASS_DEF_INSERTTRANSFERSPASS
#include "hd/Dialect/HD/Transforms/Passes.h.inc"
} // namespace hd

using namespace mlir;
using namespace hd;

namespace {

struct InsertTransfersPass
    : public hd::impl::InsertTransfersPassBase<InsertTransfersPass> {
  void runOnOperation() override {
    FailureOr<ConfiguredModule> configured =
        configuredModule(getOperation(), "--hd-insert-transfers");
    if (failed(configured))
      return signalPassFailure();
    ConfiguredModule &m = *configured;
    MLIRContext *context = &getContext();
    OpBuilder builder(context);
    for (size_t l = 0; l < m.layers.ops.size(); ++l) {
      Operation *op = m.layers.ops[l];
      const Layer &layer = m.layers.graph.layers[l];
      for (unsigned i = 0; i < layer.inputs.size(); ++i) {
        int p = layer.inputs[i].producer;
        if (p < 0 || op->getOperand(i).getDefiningOp<TransferOp>())
          continue; // A graph input, or already explicit.
        std::optional<ArrayAttr> moves = planAttr(m, l, i);
        if (!moves)
          continue;
        // Named after the edge, so reports and errors can say which.
        Location loc = NameLoc::get(builder.getStringAttr(
            m.layers.graph.layers[p].name + " -> " + layer.name));
        builder.setInsertionPoint(op);
        Value transfer = TransferOp::create(
            builder, loc, op->getOperand(i),
            toAttr(context, m.configs[p]), toAttr(context, m.configs[l]),
            *moves);
        op->setOperand(i, transfer);
      }
      ArrayAttr groups = replicaGroupsAttr(m, l);
      bool synced = llvm::any_of(op->getUsers(), [](Operation *user) {
        return isa<GradSyncOp>(user);
      });
      if (groups.empty() || synced)
        continue;
      builder.setInsertionPointAfter(op);
      GradSyncOp::create(builder, op->getLoc(), op->getResult(0), groups,
                         builder.getI64IntegerAttr(gradientShardBytes(m, l)));
    }
  }
};

} // namespace
