//===- InitAll.cpp - register everything hd's tools use -------------------===//

#include "hd/InitAll.h"
#include "hd/Dialect/HD/IR/HDDialect.h"
#include "hd/Dialect/HD/Transforms/Passes.h"
#include "hd/Target/ONNX/ImportONNX.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void hd::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<hd::HDDialect, mlir::func::FuncDialect>();
}

void hd::registerAllPasses() {
  hd::registerHDPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
}

void hd::registerAllTranslations() { hd::registerImportONNXTranslation(); }
