//===- Program.cpp - a rank's program: set up, definitions, the end -------===//
//
// The parts of a Program are made with it; prepare() sets them up in turn
// once the generated code has defined the network, and finish() writes
// what the run leaves behind. The step itself is in Step.cpp, evaluation
// in Evaluate.cpp.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include "Errors.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

namespace hdrt::exec {

namespace {

int worldRank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int worldSize() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

/// `given`, or this library's device for the options.
std::shared_ptr<Device> deviceFor(const Options &options,
                                  std::shared_ptr<Device> given) {
  if (given)
    return given;
  try {
    return makeDevice(options.device);
  } catch (const DeviceError &e) {
    // Every rank finds the same machine (no GPU, no driver).
    throw CollectiveError(e.what());
  }
}

} // namespace

Program::Program(Options options, int64_t devices, std::string modelName,
                 std::string modelHash, std::shared_ptr<Device> device,
                 std::optional<Profiling> profiling)
    : options_(std::move(options)),
      device_(deviceFor(options_, std::move(device))),
      profiling_(profiling.has_value()), rank_(profiling ? 0 : worldRank()),
      groups_(worldSize(), rank_),
      network_(devices, std::move(modelName), std::move(modelHash)),
      context_(*device_, timers_, options_.seed),
      rankState_(network_, *device_, rank_, splitWorld()),
      transfers_(network_, rankState_, *device_, timers_),
      inputs_(network_, *device_, timers_, rank_),
      io_(network_, options_, rank_),
      reporter_(network_, *device_, options_, rank_) {
  rankOptions_.seed = options_.seed;
  rankOptions_.blockedLayouts = options_.blockedLayouts;
  rankOptions_.profiling = profiling_;
  rankOptions_.profileZeroesGradient =
      !profiling || profiling->zeroOutputGradient;
  // An asynchronous device times the categories with marks of its own;
  // only runs that report them pay for those.
  if (!device_->hostAccessible() &&
      (!options_.metrics.empty() || !options_.trace.empty()))
    timers_.useMarks(device_.get());
}

/// This rank's communicator in a division of the world (SplitWorld): one
/// per distinct set of ranks, made the first time a division names it.
/// Collective over every rank.
MPI_Comm Program::split(const std::vector<int64_t> &colorOfTask) {
  std::vector<int64_t> colorOfRank = colorOfTask;
  if (colorOfRank.size() > size_t(groups_.worldSize()))
    throw Error("a group names a task beyond the " +
                std::to_string(groups_.worldSize()) + " ranks");
  colorOfRank.resize(size_t(groups_.worldSize()), -1);
  GroupRequest request = groups_.request(colorOfRank);
  if (request.split) {
    int color = request.color >= 0 ? request.color : MPI_UNDEFINED;
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank_, &comm);
    device_->groupCreated(comm, color, rank_);
    groups_.made(colorOfRank);
    if (comm != MPI_COMM_NULL)
      comms_[request.members] = comm;
  }
  if (request.members.empty())
    return MPI_COMM_NULL;
  if (request.members.size() == 1)
    return MPI_COMM_SELF;
  if (request.members.size() == size_t(groups_.worldSize()))
    return MPI_COMM_WORLD;
  return comms_.at(request.members);
}

void Program::defineGradSync(int64_t layer, const int64_t *groups,
                             int64_t length) {
  // A profiled layer runs alone: it has no replicas to sum with.
  network_.defineGradSync(layer, groups, length,
                          profiling_ ? SplitWorld() : splitWorld());
}

void Program::prepare() {
  int64_t batch = rankState_.prepare(context_, rankOptions_);
  transfers_.prepare(options_.earlyTransfers && !profiling_);
  inputs_.open(options_, batch);
  io_.checkExport();
  checkOutputs();
  if (options_.resume)
    firstStep_ = io_.resume();
  else
    io_.initWeights();
  reporter_.start(firstStep_, lastStep(), batch, inputs_.trainingSize());
  timers_.take();
}

/// Finds out before training, not after it, that a result cannot be
/// written: the checkpoint directory (created when missing) and the
/// metrics and trace files.
void Program::checkOutputs() {
  bool ok = true;
  std::string message;
  if (rank_ == 0) {
    // The probe has a name of its own: the checkpoint's temporary file may
    // be something the probe must not remove.
    auto writable = [&](const std::string &path, const char *what) {
      std::string probe = path + ".probe";
      FILE *f = std::fopen(probe.c_str(), "w");
      if (!f) {
        message = std::string("cannot write the ") + what + " '" + path +
                  "': " + std::strerror(errno);
        return false;
      }
      std::fclose(f);
      std::remove(probe.c_str());
      return true;
    };
    if (!options_.checkpoint.empty()) {
      if (::mkdir(options_.checkpoint.c_str(), 0777) != 0 && errno != EEXIST) {
        ok = false;
        message = "cannot create the checkpoint directory '" +
                  options_.checkpoint + "': " + std::strerror(errno);
      } else {
        ok = writable(options_.checkpoint + "/checkpoint.hd",
                      "checkpoint directory's file");
      }
    }
    if (ok && !options_.metrics.empty())
      ok = writable(options_.metrics, "metrics file");
    if (ok && !options_.trace.empty())
      ok = writable(options_.trace, "trace file");
    if (ok && !options_.exportOnnx.empty())
      ok = writable(options_.exportOnnx, "ONNX export");
  }
  agree(ok, message);
}

int Program::finish() {
  int64_t done = firstStep_ + reporter_.steps();
  const std::vector<Evaluation> &evaluations = reporter_.evaluations();
  if (inputs_.evaluation() &&
      (evaluations.empty() || evaluations.back().step != done))
    evaluate(done);
  if (!options_.checkpoint.empty() && reporter_.steps() > 0)
    io_.checkpoint(done);
  io_.exportOnnx();
  reporter_.writeMetrics(int64_t(comms_.size()) + device_->communicators());
  reporter_.writeTrace();
  return 0;
}

} // namespace hdrt::exec
