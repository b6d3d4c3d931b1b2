//===- PipelineFuzzer.cpp - fuzz the parser, verifier and hd passes -------===//
//
// An input is the text of an MLIR module. It is parsed and verified with
// every dialect hd registers, then run through the whole compile pipeline
// (--layerwise-parallelize, --hd-insert-transfers, --hd-lower-to-runtime)
// on 1 to 4 devices. Errors are expected; crashes, hangs, sanitizer reports
// and leaks are bugs.
//
//===----------------------------------------------------------------------===//

#include "hd/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

namespace {

/// A context with hd's dialects and one pipeline per device count. It is
/// rebuilt now and then: uniqued attributes of every input would otherwise
/// pile up for the whole run.
struct Session {
  static constexpr int kMaxDevices = 4;
  mlir::MLIRContext context;
  std::unique_ptr<mlir::ScopedDiagnosticHandler> quiet;
  std::array<std::unique_ptr<mlir::PassManager>, kMaxDevices> pipelines;

  explicit Session(const mlir::DialectRegistry &registry)
      : context(registry, mlir::MLIRContext::Threading::DISABLED) {
    context.loadAllAvailableDialects();
    quiet = std::make_unique<mlir::ScopedDiagnosticHandler>(
        &context, [](mlir::Diagnostic &) { return mlir::success(); });
    for (int d = 1; d <= kMaxDevices; ++d) {
      auto pm = std::make_unique<mlir::PassManager>(&context);
      std::string pipeline =
          "layerwise-parallelize{devices=" + std::to_string(d) +
          " machine=cpu},hd-insert-transfers,hd-lower-to-runtime";
      if (mlir::failed(mlir::parsePassPipeline(pipeline, *pm, llvm::errs())))
        std::abort(); // the harness itself is wrong
      pipelines[d - 1] = std::move(pm);
    }
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry;
    hd::registerAllDialects(*r);
    hd::registerAllPasses();
    return r;
  }();
  static std::unique_ptr<Session> session;
  static unsigned runs = 0;
  if (!session || ++runs % 1000 == 0)
    session = std::make_unique<Session>(*registry);

  // MLIR's lexer reads one byte past the text and expects a NUL there, as
  // every file buffer has; std::string keeps one.
  std::string text(reinterpret_cast<const char *>(data), size);
  mlir::ParserConfig config(&session->context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, config, "fuzz-input");
  if (!module)
    return 0;
  // The device count comes from the input, so the corpus keeps what
  // reaches each count.
  (void)session->pipelines[size % Session::kMaxDevices]->run(*module);
  return 0;
}
