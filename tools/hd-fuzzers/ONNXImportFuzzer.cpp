//===- ONNXImportFuzzer.cpp - fuzz the ONNX importer ----------------------===//
//
// An input is a serialized ONNX ModelProto. The importer must turn it into
// a verified hd module or one error diagnostic; anything else is a bug.
//
//===----------------------------------------------------------------------===//

#include "hd/Import/ONNX/ImportONNX.h"
#include "hd/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstdint>
#include <cstdlib>
#include <memory>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry;
    hd::registerAllDialects(*r);
    return r;
  }();
  // Rebuilt now and then, so uniqued names of every input do not pile up.
  static std::unique_ptr<mlir::MLIRContext> context;
  static unsigned runs = 0;
  if (!context || ++runs % 1000 == 0) {
    context = std::make_unique<mlir::MLIRContext>(
        *registry, mlir::MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
  }
  mlir::ScopedDiagnosticHandler quiet(
      context.get(), [](mlir::Diagnostic &) { return mlir::success(); });

  hd::ONNXImportOptions options;
  options.batchSize = size % 2 ? 0 : 4; // from the model, or overridden
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module = hd::importONNX(
      bytes, mlir::FileLineColLoc::get(context.get(), "fuzz.onnx", 0, 0),
      options);
  // What the importer returns must be valid IR.
  if (module && mlir::failed(mlir::verify(*module)))
    std::abort();
  return 0;
}
