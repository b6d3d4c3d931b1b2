//===- TransferPlans.cpp - transfer plans and replica groups of IR --------===//
//
// The plan of an edge comes from Tiling's transfer plan (TransferPlan.h) and
// the replica groups from the layer's configuration, each built once for
// --hd-insert-transfers to write and --hd-verify-transfers to check, so the
// two passes cannot disagree on what a configured module needs.
//
//===----------------------------------------------------------------------===//

#include "hd/Dialect/HD/Analysis/TransferPlans.h"
#include "hd/Dialect/HD/Analysis/TransferOracle.h"

#include "hd/Dialect/HD/IR/HDOps.h"
#include "hd/Tiling/TransferPlan.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <cmath>

using namespace mlir;

namespace hd {

FailureOr<ConfiguredModule> configuredModule(ModuleOp module,
                                             llvm::StringRef pass) {
  if (!module->hasAttr(HDDialect::getDevicesAttrName())) {
    module.emitError() << pass << " needs a module with hd.devices: run "
                       << "--layerwise-parallelize first";
    return failure();
  }
  FailureOr<ModuleLayers> built = buildLayerGraph(module, pass);
  if (failed(built))
    return failure();
  ConfiguredModule m{std::move(*built), {}};
  for (size_t l = 0; l < m.layers.ops.size(); ++l) {
    PConfigAttr attr = m.layers.ops[l].getParallelConfig();
    if (!attr) {
      m.layers.ops[l]->emitOpError()
          << "has no configuration; " << pass
          << " needs every layer configured (run --layerwise-parallelize)";
      return failure();
    }
    m.configs.push_back(
        toParallelConfig(attr, m.layers.graph.layers[l].shape.size()));
  }
  return m;
}

std::optional<ArrayAttr> planAttr(const ConfiguredModule &m, int consumer,
                                  unsigned operand) {
  const Layer &layer = m.layers.graph.layers[consumer];
  int producer = layer.inputs[operand].producer;
  TileGrid grid =
      tileGrid(m.layers.graph.layers[producer].shape, m.configs[producer]);
  ConsumerBoxes boxes =
      consumerBoxes(layer.shape, m.configs[consumer], [&](const TileBox &tile) {
        return layer.inputBox(operand, tile);
      });
  if (readsOwnDeviceTile(grid, boxes))
    return std::nullopt;
  MLIRContext *context = m.layers.ops[consumer]->getContext();
  SmallVector<Attribute> moves;
  for (const BoxMove &move : transferPlan(grid, boxes)) {
    SmallVector<int64_t> lo, hi;
    for (unsigned d = 0; d < move.box.rank(); ++d) {
      lo.push_back(move.box[d].lo);
      hi.push_back(move.box[d].hi);
    }
    moves.push_back(MoveAttr::get(context, move.src, move.dst, lo, hi));
  }
  return ArrayAttr::get(context, moves);
}

ArrayAttr replicaGroupsAttr(const ConfiguredModule &m, int layer) {
  MLIRContext *context = m.layers.ops[layer]->getContext();
  SmallVector<Attribute> groups;
  if (m.layers.graph.layers[layer].params > 0)
    for (const std::vector<int64_t> &g : replicaGroups(m.configs[layer]))
      if (g.size() > 1)
        groups.push_back(DenseI64ArrayAttr::get(context, g));
  return ArrayAttr::get(context, groups);
}

int64_t gradientShardBytes(const ConfiguredModule &m, int layer) {
  const std::vector<int64_t> &d = m.configs[layer].degrees;
  int64_t c = d.size() > 1 ? d[1] : 1;
  // Part 0 of a block split is the largest.
  const Layer &l = m.layers.graph.layers[layer];
  return bytesOf(l.gradientType) * parameterShard(l, c, 0);
}

/// The oracle's verdict on the plan of operand `operand` of `consumer` as
/// the module has it (`transfer`'s moves, or none), where its boxes are
/// small enough to enumerate.
static std::optional<std::string> oracleError(const ConfiguredModule &m,
                                              int consumer, unsigned operand,
                                              TransferOp transfer) {
  // A few million elements take the oracle well under a second.
  constexpr int64_t kMaxElements = int64_t(1) << 22;
  const Layer &layer = m.layers.graph.layers[consumer];
  int producer = layer.inputs[operand].producer;
  OracleEdge edge{
      m.layers.graph.layers[producer].shape, m.configs[producer].degrees,
      layer.shape, m.configs[consumer].degrees,
      [&](const TileBox &tile) { return layer.inputBox(operand, tile); }};
  std::optional<std::vector<OracleMove>> moves;
  if (transfer) {
    moves.emplace();
    for (Attribute a : transfer.getMoves()) {
      auto move = cast<MoveAttr>(a);
      moves->push_back({move.getSrc(), move.getDst(),
                        std::vector<int64_t>(move.getLo()),
                        std::vector<int64_t>(move.getHi())});
    }
  }
  return checkPlanByEnumeration(edge, moves ? &*moves : nullptr, kMaxElements);
}

LogicalResult verifyTransfers(const ConfiguredModule &m, ModuleOp module) {
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
        } else if (std::optional<std::string> wrong =
                       oracleError(m, l, i, transfer)) {
          op->emitOpError()
              << "operand #" << i << " from '" << from << "': " << *wrong;
          ok = false;
        }
        continue;
      }
      if (transfer.getFrom() != toAttr(context, m.configs[p]) ||
          transfer.getTo() != toAttr(context, m.configs[l])) {
        transfer.emitOpError()
            << "moves from " << transfer.getFrom() << " to " << transfer.getTo()
            << " but '" << from << "' has " << toAttr(context, m.configs[p])
            << " and its consumer " << toAttr(context, m.configs[l]);
        ok = false;
      } else if (std::optional<std::string> wrong =
                     oracleError(m, l, i, transfer)) {
        // Checked element by element apart from the planner, which the
        // comparison below trusts.
        transfer.emitOpError() << "moves the wrong elements: " << *wrong;
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
          << "groups differ from the replica groups of its layer, " << groups;
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
        transfer.emitOpError("must feed layers only, not ") << user->getName();
        ok = false;
      }
  });
  return success(ok);
}

} // namespace hd
