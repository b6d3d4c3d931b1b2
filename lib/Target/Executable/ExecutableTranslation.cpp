//===- ExecutableTranslation.cpp - hd-translate --hd-to-executable --------===//
//
// Lowers a module of func, arith, scf, cf and llvm ops to the LLVM dialect,
// translates it to LLVM IR, emits a host object file in-process and links it
// with the C++ compiler against the backend's hdrt runtime (libhdrt.so, or
// libhdrt_cuda.so for --backend=cuda).


//
// Where the executable goes. mlir-translate opens the -o file itself, as a
// ToolOutputFile that deletes it unless the whole run succeeds, and gives the
// translation only a stream. We keep that contract rather than have the linker
// write the -o path (which would race with, and depend on the internals of,
// mlir-translate's own file): the linker writes a temporary file, and only
// once everything has succeeded is the -o file made executable and the
// program's bytes copied into the stream. So any failure leaves no output
// file, and hd-translate's main needs no special case. Doing it here rather
// than in main also keeps the checks (no stdout, a regular file) next to the
// code that needs them.
//
//===----------------------------------------------------------------------===//

#include "hd/Target/Executable/Executable.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;

namespace {
/// Function-local in registerToExecutableTranslation(): tools that never
/// register the translation (hd-opt) do not grow these flags.
struct ExecutableOptions {
  llvm::cl::opt<std::string> backend{
      "backend",
      llvm::cl::desc("--hd-to-executable: the runtime backend to link: "
                     "cpu (libhdrt.so) or cuda (libhdrt_cuda.so)"),
      llvm::cl::value_desc("cpu|cuda"), llvm::cl::init("cpu")};
  llvm::cl::opt<std::string> runtimeDir{
      "hd-runtime-dir",
      llvm::cl::desc("--hd-to-executable: the directory holding libhdrt.so "
                     "and libhdrt_cuda.so (default: $HD_RUNTIME_DIR, else "
                     HD_DEFAULT_RUNTIME_DIR ")"),
      llvm::cl::value_desc("dir")};
};
} // namespace

/// The -o path, checked to be a regular file that `os` writes from its start.
/// The translation API passes only the stream, so the path comes from
/// mlir-translate's own `-o` option (a cl::opt<std::string>; dynamic_cast
/// works because Debian's LLVM, and so hd, is built with RTTI).
static FailureOr<std::string> findOutputPath(ModuleOp module,
                                             llvm::raw_ostream &os) {
  auto *outputOpt = dynamic_cast<llvm::cl::opt<std::string> *>(
      llvm::cl::getRegisteredOptions().lookup("o"));
  if (!outputOpt)
    return emitError(module.getLoc())
           << "--hd-to-executable runs only in hd-translate (no -o option)";
  std::string path = *outputOpt;
  if (path == "-")
    return emitError(module.getLoc())
           << "--hd-to-executable cannot write the executable to stdout "
              "(-o -, the default): give the output file with -o FILE";
  // A string stream means another translation reads our bytes; a non-empty
  // file means a second --split-input-file chunk: neither is one program.
  if (!dynamic_cast<llvm::raw_fd_ostream *>(&os) || os.tell() != 0)
    return emitError(module.getLoc())
           << "--hd-to-executable must write one program straight into the "
              "-o file: no chained translation, no --split-input-file";
  // mlir-translate has created the file; refuse /dev/null, a FIFO, ... (we
  // are about to chmod it).
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status) ||
      status.type() != llvm::sys::fs::file_type::regular_file)
    return emitError(module.getLoc())
           << "--hd-to-executable writes a regular file; '" << path
           << "' is not one";
  return path;
}

/// The absolute directory that holds the backend's runtime library
/// (lib<library>.so), from --hd-runtime-dir, else $HD_RUNTIME_DIR, else the
/// build's lib dir. Absolute because it also becomes the program's rpath.
static FailureOr<std::string> findRuntimeDir(ModuleOp module,
                                             const ExecutableOptions &opts,
                                             llvm::StringRef library) {
  std::string source = "--hd-runtime-dir";
  std::string dir = opts.runtimeDir;
  if (!opts.runtimeDir.getNumOccurrences()) {
    std::optional<std::string> env =
        llvm::sys::Process::GetEnv("HD_RUNTIME_DIR");
    if (env && !env->empty()) {
      source = "HD_RUNTIME_DIR";
      dir = *env;
    } else {
      source = "the default of this build";
      dir = HD_DEFAULT_RUNTIME_DIR;
    }
  }
  llvm::SmallString<256> absDir(dir);
  if (dir.empty() || llvm::sys::fs::make_absolute(absDir)) {
    emitError(module.getLoc())
        << "invalid runtime directory '" << dir << "' (from " << source << ")";
    return failure();
  }
  llvm::SmallString<256> lib(absDir);
  std::string file = ("lib" + library + ".so").str();
  llvm::sys::path::append(lib, file);
  if (!llvm::sys::fs::exists(lib)) {
    InFlightDiagnostic diag = emitError(module.getLoc());
    diag << "the hd runtime library " << file << " is not in '" << absDir
         << "' (from " << source << "); build the " << library
         << " target, or give the directory that holds it with "
            "--hd-runtime-dir=DIR or HD_RUNTIME_DIR=DIR";
    if (library == "hdrt_cuda")
      diag << " (the CUDA backend is built where nvcc, cuDNN 9 and NCCL are "
              "installed: configure with -DHD_CUDA=ON)";
    return diag;
  }
  return std::string(absDir);
}

/// The program starts in @main, so it must be defined here, with one of C's
/// signatures: anything else links but returns a garbage exit code.
static LogicalResult checkMain(ModuleOp module) {
  auto main = llvm::dyn_cast_or_null<FunctionOpInterface>(
      SymbolTable::lookupSymbolIn(module, "main"));
  if (!main || main.isExternal())
    return emitError(module.getLoc())
           << "--hd-to-executable needs a function @main with a body: the "
              "program's entry point";
  // Type predicates, not constructed types: the LLVM dialect may not be
  // loaded yet (a module without llvm ops).
  ArrayRef<Type> args = main.getArgumentTypes();
  ArrayRef<Type> results = main.getResultTypes();
  bool cArgs = args.empty() || (args.size() == 2 && args[0].isInteger(32) &&
                                isa<LLVM::LLVMPointerType>(args[1]));
  if (cArgs && results.size() == 1 && results[0].isInteger(32))
    return success();
  return main.emitError()
         << "@main must be (i32, !llvm.ptr) -> i32 or () -> i32, not "
         << main.getFunctionType();
}

/// func/arith/scf/cf -> llvm dialect. Conversions are partial, so an op they
/// do not know survives silently: name the first one instead of letting the
/// LLVM IR export fail with a less direct message.
static LogicalResult lowerToLLVMDialect(ModuleOp module) {
  PassManager pm(module->getName());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  if (failed(pm.run(module)))
    return emitError(module.getLoc())
           << "--hd-to-executable could not lower the module to the LLVM "
              "dialect (see the errors above)";
  auto *llvmDialect =
      module->getContext()->getLoadedDialect<LLVM::LLVMDialect>();
  WalkResult walk = module.walk([&](Operation *op) {
    if (op == module.getOperation() || op->getDialect() == llvmDialect)
      return WalkResult::advance();
    op->emitError() << "'" << op->getName()
                    << "' cannot be lowered to the LLVM dialect: "
                       "--hd-to-executable takes func, arith, scf, cf and "
                       "llvm ops";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

/// A temporary file that is removed when this object goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  llvm::FileRemover remover;
};

static LogicalResult makeTempFile(ModuleOp module, llvm::StringRef suffix,
                                  TempFile &file) {
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("hd-exe", suffix, file.path))
    return emitError(module.getLoc())
           << "cannot create a temporary file: " << ec.message();
  file.remover.setFile(file.path);
  return success();
}

/// LLVM IR -> a host object file (PIC, so the default PIE link accepts it).
static LogicalResult emitObject(ModuleOp module, llvm::Module &llvmModule,
                                llvm::StringRef objPath) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitError(module.getLoc())
           << "no LLVM target for the host '" << triple.str() << "': " << error;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), /*Features=*/"",
      llvm::TargetOptions(), llvm::Reloc::PIC_));
  if (!machine)
    return emitError(module.getLoc())
           << "cannot create an LLVM target machine for '" << triple.str()
           << "'";
  llvmModule.setTargetTriple(triple);
  llvmModule.setDataLayout(machine->createDataLayout());
  llvmModule.setPICLevel(llvm::PICLevel::BigPIC);
  llvmModule.setPIELevel(llvm::PIELevel::Large);

  std::error_code ec;
  llvm::raw_fd_ostream objStream(objPath, ec, llvm::sys::fs::OF_None);
  if (ec)
    return emitError(module.getLoc())
           << "cannot write '" << objPath << "': " << ec.message();
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, objStream, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return emitError(module.getLoc())
           << "the LLVM target cannot emit object files";
  codegen.run(llvmModule);
  objStream.close();
  if (objStream.has_error()) {
    ec = objStream.error();
    objStream.clear_error(); // Else its destructor aborts.
    return emitError(module.getLoc())
           << "cannot write '" << objPath << "': " << ec.message();
  }
  return success();
}

/// `<cxx> obj -o exe -L<dir> -l<library> -Xlinker -rpath -Xlinker <dir>`; the linker's output
/// goes into the error when it fails.
static LogicalResult link(ModuleOp module, llvm::StringRef objPath,
                          llvm::StringRef exePath, llvm::StringRef runtimeDir,
                          llvm::StringRef library) {
  TempFile log;
  if (failed(makeTempFile(module, "log", log)))
    return failure();
  std::string libDirArg = ("-L" + runtimeDir).str();
  std::string libArg = ("-l" + library).str();
  // -Xlinker passes the directory whole: -Wl, would split it at commas.
  std::string rpath = runtimeDir.str();
  llvm::StringRef cxx = HD_CXX_COMPILER;
  llvm::SmallVector<llvm::StringRef> args = {
      cxx,         objPath,  "-o",        exePath, libDirArg,
      libArg,      "-Xlinker", "-rpath", "-Xlinker", rpath};
  if (llvm::StringRef extra = HD_EXE_LINK_FLAGS; !extra.empty())
    args.push_back(extra);
  // stdin from /dev/null; stdout and stderr (same path: shared) to the log.
  std::optional<llvm::StringRef> redirects[] = {
      llvm::StringRef(), llvm::StringRef(log.path), llvm::StringRef(log.path)};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(cxx, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                     &execError);
  if (rc == 0)
    return success();
  InFlightDiagnostic diag = emitError(module.getLoc());
  if (rc < 0) {
    diag << "cannot run the linker '" << cxx << "': " << execError;
    return diag;
  }
  diag << "linking failed (exit code " << rc << "):";
  for (llvm::StringRef arg : args)
    diag << " " << arg;
  if (auto buffer = llvm::MemoryBuffer::getFile(log.path))
    diag << "\n" << (*buffer)->getBuffer().rtrim();
  return diag;
}

static LogicalResult translateToExecutable(ModuleOp module,
                                           llvm::raw_ostream &os,
                                           const ExecutableOptions &opts) {
  // Cheap checks first, so a wrong flag costs no code generation.
  FailureOr<std::string> outputPath = findOutputPath(module, os);
  if (failed(outputPath))
    return failure();
  if (opts.backend != "cpu" && opts.backend != "cuda")
    return emitError(module.getLoc())
           << "unknown backend '" << opts.backend << "' (expected cpu or cuda)";
  llvm::StringRef library = opts.backend == "cuda" ? "hdrt_cuda" : "hdrt";
  FailureOr<std::string> runtimeDir = findRuntimeDir(module, opts, library);
  if (failed(runtimeDir) || failed(checkMain(module)) ||
      failed(lowerToLLVMDialect(module)))
    return failure();

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return emitError(module.getLoc())
           << "--hd-to-executable could not translate the module to LLVM IR";

  TempFile obj, exe;
  if (failed(makeTempFile(module, "o", obj)) ||
      failed(makeTempFile(module, "", exe)) ||
      failed(emitObject(module, *llvmModule, obj.path)) ||
      failed(link(module, obj.path, exe.path, *runtimeDir, library)))
    return failure();

  auto program = llvm::MemoryBuffer::getFile(exe.path, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
  if (!program)
    return emitError(module.getLoc())
           << "cannot read the linked program '" << exe.path
           << "': " << program.getError().message();
  // Executable as a linker would leave it: rwx for all, less the umask.
  auto mode = static_cast<llvm::sys::fs::perms>(llvm::sys::fs::all_all &
                                                ~llvm::sys::fs::getUmask());
  if (std::error_code ec = llvm::sys::fs::setPermissions(*outputPath, mode))
    return emitError(module.getLoc()) << "cannot make '" << *outputPath
                                      << "' executable: " << ec.message();
  auto &output = static_cast<llvm::raw_fd_ostream &>(os);
  output << (*program)->getBuffer();
  output.flush();
  if (output.has_error()) {
    std::error_code ec = output.error();
    output.clear_error(); // Else its destructor aborts the tool.
    return emitError(module.getLoc())
           << "cannot write '" << *outputPath << "': " << ec.message();
  }
  return success();
}

void hd::registerToExecutableTranslation() {
  static ExecutableOptions options;
  static TranslateFromMLIRRegistration reg(
      "hd-to-executable",
      "Lower func/arith/scf/cf/llvm to a native executable linked with hdrt",
      [](ModuleOp module, llvm::raw_ostream &os) {
        return translateToExecutable(module, os, options);
      },
      [](DialectRegistry &registry) {
        registry
            .insert<arith::ArithDialect, cf::ControlFlowDialect,
                    func::FuncDialect, LLVM::LLVMDialect, scf::SCFDialect>();
        registerBuiltinDialectTranslation(registry);
        registerLLVMDialectTranslation(registry);
      });
}
