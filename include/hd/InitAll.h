//===- InitAll.h - register everything hd's tools use -----------*- C++ -*-===//
//
// One place that registers dialects, passes and translations, so each tool's
// main is a few lines and rarely recompiles.
//
//===----------------------------------------------------------------------===//

#ifndef HD_INITALL_H
#define HD_INITALL_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace hd {
/// The hd dialect and the upstream dialects hd programs use.
void registerAllDialects(mlir::DialectRegistry &registry);
/// hd's passes plus the generic upstream ones (canonicalize, cse, ...).
void registerAllPasses();
/// hd-translate's translations (--import-onnx, --hd-to-executable, ...).
void registerAllTranslations();
/// Whether `name` is one of those translations' flags. They are values of
/// mlir-translate's translation list, not options of their own, so
/// checkHelpLikeArguments must be told about them.
bool isTranslationName(llvm::StringRef name);

/// LLVM's command line reads an unknown `--h<anything>` as `-h`: it prints
/// the help and exits 0, so a mistyped `--hd-...` pass would "succeed".
/// Returns false, after an error naming the argument, when such an argument
/// is neither a registered option nor accepted by `isKnown`.
bool checkHelpLikeArguments(int argc, char **argv, llvm::StringRef tool,
                            llvm::function_ref<bool(llvm::StringRef)> isKnown);
} // namespace hd

#endif // HD_INITALL_H
