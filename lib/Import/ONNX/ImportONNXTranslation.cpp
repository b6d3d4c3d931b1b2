//===- ImportONNXTranslation.cpp - hd-translate --import-onnx -------------===//

#include "hd/Import/ONNX/ImportONNX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

static llvm::cl::opt<int64_t> batchSize(
    "batch-size",
    llvm::cl::desc("Global batch size for --import-onnx (required when the "
                   "model's batch is dynamic)"),
    llvm::cl::init(-1));

static llvm::cl::opt<bool> noLoss(
    "no-loss",
    llvm::cl::desc("--import-onnx: return the model's output instead of "
                   "appending the softmax cross-entropy loss"),
    llvm::cl::init(false));

static llvm::cl::list<std::string> frozenTensors(
    "frozen-tensors",
    llvm::cl::desc("--import-onnx: initializers that are buffers the model "
                   "keeps fixed, not parameters it trains (per-channel "
                   "operands of Add, Sub, Mul and Div)"),
    llvm::cl::CommaSeparated);

/// A symbol-friendly model name from the file name: "inception_v3".
static std::string modelNameFor(StringRef path) {
  std::string name = llvm::sys::path::stem(path).str();
  for (char &c : name)
    if (!llvm::isAlnum(c) && c != '_')
      c = '_';
  if (name.empty() || llvm::isDigit(name[0]))
    name = "model_" + name;
  return name;
}

void hd::registerImportONNXTranslation() {
  static TranslateRegistration reg(
      "import-onnx", "Import an ONNX CNN into the hd dialect",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
         llvm::raw_ostream &output, MLIRContext *context) -> LogicalResult {
        const llvm::MemoryBuffer *buffer =
            sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
        StringRef path = buffer->getBufferIdentifier();
        Location fileLoc = FileLineColLoc::get(context, path, 0, 0);
        if (batchSize.getNumOccurrences() && batchSize < 1)
          return emitError(fileLoc)
                 << "--batch-size=" << batchSize.getValue()
                 << " must be at least 1";
        ONNXImportOptions options;
        options.batchSize = batchSize < 1 ? 0 : batchSize.getValue();
        options.appendLoss = !noLoss;
        options.modelName = modelNameFor(path);
        options.frozenTensors.assign(frozenTensors.begin(),
                                     frozenTensors.end());
        OwningOpRef<ModuleOp> module =
            importONNX(buffer->getBuffer(), fileLoc, options);
        if (!module)
          return failure();
        // Locations carry the ONNX node names that reports use: keep them.
        module->print(output, OpPrintingFlags().enableDebugInfo(
                                  /*enable=*/true, /*prettyForm=*/false));
        output << "\n";
        return success();
      });
}
