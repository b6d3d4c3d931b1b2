//===- VerifyTransfers.cpp - the contract lowering relies on --------------===//

#include "hd/Dialect/HD/Analysis/TransferPlans.h"

#include "hd/Dialect/HD/IR/HDOps.h"
#include "hd/Dialect/HD/Transforms/Passes.h"

namespace hd {
#define GEN_PASS_DEF_VERIFYTRANSFERSPASS
#include "hd/Dialect/HD/Transforms/Passes.h.inc"
} // namespace hd

using namespace mlir;
using namespace hd;

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
