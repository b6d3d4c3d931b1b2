//===- hd-opt.cpp - hd's optimizer driver ---------------------------------===//

#include "hd/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  hd::registerAllDialects(registry);
  hd::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "hd optimizer driver\n", registry));
}
