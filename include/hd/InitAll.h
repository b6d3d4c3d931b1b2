//===- InitAll.h - register everything hd's tools use -----------*- C++ -*-===//
//
// One place that registers dialects, passes and translations, so each tool's
// main is a few lines and rarely recompiles.
//
//===----------------------------------------------------------------------===//

#ifndef HD_INITALL_H
#define HD_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace hd {
/// The hd dialect and the upstream dialects hd programs use.
void registerAllDialects(mlir::DialectRegistry &registry);
/// hd's passes plus the generic upstream ones (canonicalize, cse, ...).
void registerAllPasses();
/// hd-translate's translations (--import-onnx, ...).
void registerAllTranslations();
} // namespace hd

#endif // HD_INITALL_H
