//===- hd-opt.cpp - hd's optimizer driver ---------------------------------===//

#include "hd/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  hd::registerAllDialects(registry);
  hd::registerAllPasses();
  if (!hd::checkHelpLikeArguments(
          argc, argv, "hd-opt", [](llvm::StringRef name) {
            return mlir::PassInfo::lookup(name) ||
                   mlir::PassPipelineInfo::lookup(name);
          }))
    return 1;
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "hd optimizer driver\n", registry));
}
