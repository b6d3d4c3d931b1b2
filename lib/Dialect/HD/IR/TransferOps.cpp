//===- TransferOps.cpp - the ops the parallelization inserts --------------===//
//
// hd.transfer and hd.grad_sync are not layers: --hd-insert-transfers adds
// them between configured layers, and lowering executes them as written.
// Their verifiers check what lowering relies on of each op alone: a plan
// within the configurations' tiles and device counts, and replica groups
// of distinct tasks (--hd-verify-transfers checks them against the layers).
//
//===----------------------------------------------------------------------===//

#include "OpVerification.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace hd;
using namespace hd::detail;

//===----------------------------------------------------------------------===//
// TransferOp and GradSyncOp
//===----------------------------------------------------------------------===//

/// A configuration fits a tensor of `rank` dims: h and w only for 4-D.
static LogicalResult checkConfigRank(Operation *op, StringRef name,
                                     PConfigAttr config, int64_t rank) {
  if (rank != 4 && (config.getH() || config.getW()))
    return op->emitOpError() << "'" << name << "' " << config
                             << " splits h or w of a " << rank
                             << "-D tensor";
  return success();
}

LogicalResult TransferOp::verify() {
  if (failed(checkTensor(*this, getInput(), "input", {2, 4},
                         "2-D NxF or 4-D NxCxHxW")))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(getInput());
  if (failed(checkConfigRank(*this, "from", getFrom(), shape.size())))
    return failure();
  // `from` splits this tensor; `to` splits the consumer's output, whose
  // shape the consumer's own verifier checks it against.
  static const char *const dims[] = {"n", "c", "h", "w"};
  PConfigAttr from = getFrom();
  int64_t degrees[] = {from.getN(), from.getC(), from.getHeightDegree(),
                       from.getWidthDegree()};
  for (size_t d = 0; d < shape.size(); ++d)
    if (degrees[d] > shape[d])
      return emitOpError() << "'from' degree " << dims[d] << "="
                           << degrees[d] << " exceeds dim " << d << " of size "
                           << shape[d];
  for (PConfigAttr config : {getFrom(), getTo()}) {
    int64_t tasks = 1;
    for (int64_t d : {config.getN(), config.getC(), config.getHeightDegree(),
                      config.getWidthDegree()}) {
      if (d > HDDialect::kMaxDevices)
        return emitOpError() << config << " has more than "
                             << HDDialect::kMaxDevices << " tasks";
      tasks *= d;
      if (tasks > HDDialect::kMaxDevices)
        return emitOpError() << config << " has more than "
                             << HDDialect::kMaxDevices << " tasks";
    }
  }
  for (auto [i, attr] : llvm::enumerate(getMoves())) {
    auto move = cast<MoveAttr>(attr);
    if (move.getSrc() >= getFrom().getNumTasks() ||
        move.getDst() >= getTo().getNumTasks())
      return emitOpError() << "move #" << i << " goes from task "
                           << move.getSrc() << " to task " << move.getDst()
                           << ", but 'from' has " << getFrom().getNumTasks()
                           << " tasks and 'to' has " << getTo().getNumTasks();
    if (move.getLo().size() != shape.size())
      return emitOpError() << "move #" << i << " has a " << move.getLo().size()
                           << "-D box for a " << shape.size() << "-D tensor";
    for (size_t d = 0; d < shape.size(); ++d)
      if (move.getHi()[d] > shape[d])
        return emitOpError() << "move #" << i << " reaches " << move.getHi()[d]
                             << " along dim " << d << " of size " << shape[d];
  }
  return success();
}

LogicalResult GradSyncOp::verify() {
  auto layer = getLayerOutput().getDefiningOp<LayerOpInterface>();
  if (!layer || layer.getParameterCount() == 0)
    return emitOpError("syncs the gradients of a layer with parameters; its "
                       "operand must be such a layer's output");
  if (getGroups().empty())
    return emitOpError("needs at least one replica group");
  for (auto [i, attr] : llvm::enumerate(getGroups())) {
    ArrayRef<int64_t> tasks = cast<DenseI64ArrayAttr>(attr).asArrayRef();
    if (tasks.size() < 2)
      return emitOpError() << "replica group #" << i
                           << " has fewer than 2 tasks: nothing to sync";
    llvm::SmallDenseSet<int64_t> seen;
    for (int64_t t : tasks)
      if (t < 0 || !seen.insert(t).second)
        return emitOpError() << "replica group #" << i
                             << " lists task " << t
                             << " twice or a negative task";
  }
  if (static_cast<int64_t>(getBytes()) < 1)
    return emitOpError("bytes must be positive");
  return success();
}
