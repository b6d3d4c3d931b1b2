//===- InitAll.cpp - register everything hd's tools use -------------------===//

#include "hd/InitAll.h"
#include "hd/Conversion/Passes.h"
#include "hd/Dialect/HD/IR/HDDialect.h"
#include "hd/Dialect/HD/Transforms/Passes.h"
#include "hd/Import/ONNX/ImportONNX.h"
#include "hd/Pipelines/Pipelines.h"
#include "hd/Target/Executable/Executable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

void hd::registerAllDialects(mlir::DialectRegistry &registry) {
  // What lowered programs use, so every stage's output parses again.
  registry.insert<hd::HDDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::scf::SCFDialect,
                  mlir::LLVM::LLVMDialect>();
}

void hd::registerAllPasses() {
  hd::registerHDPasses();
  hd::registerHDConversionPasses();
  hd::registerPipelines();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
}

void hd::registerAllTranslations() {
  hd::registerImportONNXTranslation();
  hd::registerToExecutableTranslation();
}

bool hd::isTranslationName(llvm::StringRef name) {
  // Keep in step with registerAllTranslations().
  return name == "import-onnx" || name == "hd-to-executable";
}

bool hd::checkHelpLikeArguments(
    int argc, char **argv, llvm::StringRef tool,
    llvm::function_ref<bool(llvm::StringRef)> isKnown) {
  static const char *const help[] = {"h", "help", "help-hidden", "help-list",
                                     "help-list-hidden"};
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg == "--")
      break; // Everything after is a positional argument.
    if (!arg.consume_front("--") && !arg.consume_front("-"))
      continue;
    llvm::StringRef name = arg.split('=').first;
    if (!name.starts_with("h") || llvm::is_contained(help, name) ||
        llvm::cl::getRegisteredOptions().count(name) || isKnown(name))
      continue;
    llvm::errs() << tool << ": unknown command line argument '" << argv[i]
                 << "'. Try: '" << tool << " --help'\n";
    return false;
  }
  return true;
}
