//===- Abi.cpp - the C functions generated programs call ------------------===//
//
// Each function forwards to this rank's Program. An error that every rank
// meets at the same point (a bad flag, the wrong number of ranks, a
// checkpoint that cannot be read) is reported once by rank 0 and all ranks
// exit with status 2. Any other error ends the whole job through
// MPI_Abort, so a failing rank never leaves the others waiting.
//
//===----------------------------------------------------------------------===//

#include "Errors.h"
#include "Program.h"

#include "hdrt/LayerTable.h"
#include "hdrt/hdrt.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

using namespace hdrt::exec;

namespace {

std::unique_ptr<Program> program;
int worldRank = 0;

/// The MPI thread level to ask for: a second thread for the gradient sums
/// (--overlap-sync) needs MPI_THREAD_MULTIPLE, which makes every MPI call
/// a little dearer, so ask for it only where the sums may use it. Decided
/// before MPI starts: by the flag, and under `auto` by the ranks sharing
/// this host, from the launcher's environment.
int threadLevel(const Options &options) {
  using Overlap = hdrt::DeviceOptions::SyncOverlap;
  Overlap mode = options.device.overlapSync;
  if (mode != Overlap::Auto)
    return mode == Overlap::Off ? MPI_THREAD_FUNNELED : MPI_THREAD_MULTIPLE;
  // Auto uses the thread where a rank has two cores or more
  // (makeCpuDevice); unknown local ranks: ask, to be able to.
  for (const char *name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"})
    if (const char *local = std::getenv(name)) {
      unsigned cores = std::max(1u, std::thread::hardware_concurrency());
      int ranks = std::max(1, std::atoi(local));
      return cores / unsigned(ranks) >= 2 ? MPI_THREAD_MULTIPLE
                                          : MPI_THREAD_FUNNELED;
    }
  return MPI_THREAD_MULTIPLE;
}

[[noreturn]] void collectiveExit(const std::string &message) {
  if (worldRank == 0)
    std::fprintf(stderr, "hd: error: %s\n", message.c_str());
  std::fflush(stderr);
  MPI_Finalize();
  std::exit(2);
}

[[noreturn]] void abortJob(const std::string &message) {
  std::fprintf(stderr, "hd: error on rank %d: %s\n", worldRank,
               message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1); // MPI_Abort does not return; this satisfies [[noreturn]].
}

Program &get() {
  if (!program)
    abortJob("the program called the runtime before hdrt_init");
  return *program;
}

/// Runs `body`, turning every error into the end of the job.
template <typename Body> auto guarded(Body body) -> decltype(body()) {
  try {
    return body();
  } catch (const CollectiveError &e) {
    collectiveExit(e.what());
  } catch (const hdrt::DeviceError &e) {
    // The device names the failed call; the program names the layer.
    abortJob(program && !program->activity().empty()
                 ? "in " + program->activity() + ": " + e.what()
                 : std::string(e.what()));
  } catch (const std::exception &e) {
    abortJob(e.what());
  }
}

} // namespace

extern "C" {

void hdrt_init(int32_t argc, void *argv, int64_t devices, void *modelName,
               void *modelHash, int64_t tables) {
  // The flags first: they choose how MPI starts. Errors are reported once
  // it has (by rank 0 alone).
  char **args = static_cast<char **>(argv);
  const char *programName = argc > 0 && args[0] ? args[0] : "program";
  Options options;
  bool help = false;
  std::string error;
  bool parsed = parseOptions(argc, args, options, help, error);
  int provided = 0;
  MPI_Init_thread(&argc, reinterpret_cast<char ***>(&argv),
                  threadLevel(options), &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);
  // The layer descriptors and calls of a program compiled with other tables
  // would be misread: refuse it before reading any.
  if (tables != hdrt::kTablesFingerprint) {
    char message[160];
    std::snprintf(message, sizeof(message),
                  "this program was compiled for another hdrt runtime "
                  "(tables %016llx; this runtime's are %016llx): compile it "
                  "again with this hd",
                  static_cast<unsigned long long>(tables),
                  static_cast<unsigned long long>(hdrt::kTablesFingerprint));
    collectiveExit(message);
  }
  if (!parsed)
    collectiveExit(error + "\n" + usage(programName));
  if (help) {
    if (worldRank == 0)
      std::printf("%s", usage(programName).c_str());
    MPI_Finalize();
    std::exit(0);
  }
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  pickThreads();
  if (size != devices)
    collectiveExit("this program was compiled for " + std::to_string(devices) +
                   " devices but runs on " + std::to_string(size) +
                   " MPI processes; run it as `mpirun -np " +
                   std::to_string(devices) + " " + programName +
                   " ...` or compile it for " + std::to_string(size) +
                   " devices");
  guarded([&] {
    program = std::make_unique<Program>(options, devices,
                                        static_cast<const char *>(modelName),
                                        static_cast<const char *>(modelHash));
  });
}

void hdrt_define_layer(int64_t layer, int64_t kind, void *name, int64_t rank,
                       void *shape, void *degrees, int64_t operands,
                       void *descriptor, int64_t descriptorBytes) {
  guarded([&] {
    const hdrt::LayerKindInfo *known = hdrt::findLayerKind(kind);
    if (!known)
      throw Error("unknown layer kind " + std::to_string(kind));
    get().network().defineLayer(
        layer, known->kind, static_cast<const char *>(name),
        static_cast<int>(rank), static_cast<const int64_t *>(shape),
        static_cast<const int64_t *>(degrees), operands, descriptor,
        descriptorBytes);
  });
}

void hdrt_define_tensors(int64_t layer, void *text) {
  guarded([&] {
    get().network().defineTensors(layer, static_cast<const char *>(text));
  });
}

void hdrt_define_source(void *bytes, int64_t size) {
  guarded([&] {
    get().network().defineSource(static_cast<const char *>(bytes), size);
  });
}

void hdrt_define_edge(int64_t edge, int64_t consumer, int64_t operand,
                      int64_t producer, int64_t rank, void *shape, void *moves,
                      int64_t moveCount) {
  guarded([&] {
    get().network().defineEdge(edge, consumer, operand, producer,
                               static_cast<int>(rank),
                               static_cast<const int64_t *>(shape),
                               static_cast<const int64_t *>(moves), moveCount);
  });
}

void hdrt_define_grad_sync(int64_t layer, void *groups, int64_t length) {
  guarded([&] {
    get().defineGradSync(layer, static_cast<const int64_t *>(groups), length);
  });
}

void hdrt_prepare(void) {
  guarded([&] { get().prepare(); });
}

int64_t hdrt_first_step(void) {
  return guarded([&] { return get().firstStep(); });
}

int64_t hdrt_last_step(void) {
  return guarded([&] { return get().lastStep(); });
}

void hdrt_step_begin(int64_t step) {
  guarded([&] { get().stepBegin(step); });
}

void hdrt_forward(int64_t layer) {
  guarded([&] { get().forward(layer); });
}

void hdrt_transfer_forward(int64_t edge) {
  guarded([&] { get().transferForward(edge); });
}

void hdrt_backward(int64_t layer) {
  guarded([&] { get().backward(layer); });
}

void hdrt_transfer_backward(int64_t edge) {
  guarded([&] { get().transferBackward(edge); });
}

void hdrt_grad_sync(int64_t layer) {
  guarded([&] { get().gradSync(layer); });
}

void hdrt_sgd_update(int64_t layer) {
  guarded([&] { get().sgdUpdate(layer); });
}

void hdrt_step_end(int64_t step) {
  guarded([&] { get().stepEnd(step); });
}

int32_t hdrt_finalize(void) {
  int rc = guarded([&] { return get().finish(); });
  program.reset();
  MPI_Finalize();
  return rc;
}

} // extern "C"
