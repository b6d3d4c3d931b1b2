//===- Executable.h - lowered MLIR to a native executable -------*- C++ -*-===//

#ifndef HD_TARGET_EXECUTABLE_EXECUTABLE_H
#define HD_TARGET_EXECUTABLE_EXECUTABLE_H

namespace hd {

/// Registers `--hd-to-executable` with its `--backend` and `--hd-runtime-dir`
/// options. The options are created on the first call, so only tools that
/// register the translation (hd-translate) get them; call this before the
/// command line is parsed or checked.
void registerToExecutableTranslation();

} // namespace hd

#endif // HD_TARGET_EXECUTABLE_EXECUTABLE_H
