//===- ImportONNX.h - ONNX graphs to the hd dialect -------------*- C++ -*-===//

#ifndef HD_IMPORT_ONNX_IMPORTONNX_H
#define HD_IMPORT_ONNX_IMPORTONNX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hd {

struct ONNXImportOptions {
  /// Global batch size; 0 takes it from the model, which then must be static.
  int64_t batchSize = 0;
  /// Append softmax cross-entropy on the output, making a training graph.
  /// Off, the function returns the model's output (an inference graph).
  bool appendLoss = true;
  /// Name of the model (module attribute hd.model and the function's name).
  std::string modelName = "model";
  /// Keep the source model in the module (hd.source, without the data of
  /// the tensors layers read their parameters from), so that programs can
  /// write their trained weights back as ONNX.
  bool keepSource = true;
  /// Initializers that are buffers the model keeps fixed rather than
  /// parameters it trains (ONNX does not tell them apart): each must be the
  /// per-channel operand of an Add, Sub, Mul or Div.
  std::vector<std::string> frozenTensors;
};

/// Imports a serialized ONNX ModelProto. Every problem is reported as one
/// error diagnostic at `fileLoc` (all unsupported nodes in a single message);
/// returns null then.
mlir::OwningOpRef<mlir::ModuleOp> importONNX(llvm::StringRef bytes,
                                             mlir::Location fileLoc,
                                             const ONNXImportOptions &options);

/// Registers `--import-onnx` with its `--batch-size` and `--no-loss` options.
void registerImportONNXTranslation();

} // namespace hd

#endif // HD_IMPORT_ONNX_IMPORTONNX_H
