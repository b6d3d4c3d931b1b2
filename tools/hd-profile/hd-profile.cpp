//===- hd-profile.cpp - measure what the cost model needs -----------------===//
//
//   hd-profile model.mlir --devices=N [--machine=M] -o profile.json
//   hd-profile calibrate [--machine=M] -o machine.json
//   hd-profile model.mlir --devices=N --emit-jobs -o jobs.txt
//   hd-profile --import-times=times.txt -o profile.json
//   hd-profile --import-calibration=calibration.txt [--machine=M] -o m.json
//
// The first times every (layer, tile) the search may consider with the
// runtime's own kernels (forward, backward, parameter update; a warm-up,
// then the trimmed mean of repeats) and writes a profile database; entries
// already in the output file for this backend and device are reused, so
// re-profiling is incremental. The second measures this host: MPI latency,
// point-to-point and all-reduce bandwidth, dense and memory-bound kernel
// speed, and writes a machine description. Run either under `mpirun -np P`
// to measure while P processes share the host, as P devices of a program
// would. The last two time layers on a machine without MLIR (a GPU
// machine): the jobs go there as text, `hdrt-profile-cuda` times them, and
// the times come back into a database. The last makes a machine file from
// what `hdrt-profile-cuda calibrate` measured there; with one process
// there, the links are the base machine's.
//
//===----------------------------------------------------------------------===//

#include "CalibrationWorkloads.h"
#include "ModelJobs.h"

#include "hd/CostModel/CostModel.h"
#include "hd/CostModel/Machine.h"
#include "hd/CostModel/ProfileDB.h"
#include "hd/InitAll.h"
#include "hd/Tiling/ParallelConfig.h"

#include "hdrt/Profile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>
#include <unistd.h>

using namespace llvm;

namespace {

cl::opt<std::string> input(cl::Positional,
                           cl::desc("<model.mlir | calibrate>"));
cl::opt<bool> emitJobs("emit-jobs",
                       cl::desc("Write the layers to time as text (-o) "
                                "instead of timing them here"));
cl::opt<std::string> importTimes(
    "import-times",
    cl::desc("Add the times hdrt-profile-cuda measured to the database (-o)"),
    cl::value_desc("file"));
cl::opt<std::string> importCalibration(
    "import-calibration",
    cl::desc("Make a machine file (-o) from what hdrt-profile calibrate "
             "measured"),
    cl::value_desc("file"));
cl::opt<std::string> output("o", cl::desc("Output file"),
                            cl::value_desc("file"), cl::Required);
cl::opt<std::string> machineName("machine",
                                 cl::desc("Built-in machine or machine file "
                                          "(the default device count; the "
                                          "base of a calibrated machine)"),
                                 cl::init("cpu"));
cl::opt<int64_t> devices("devices",
                         cl::desc("Device count (default: the machine's)"),
                         cl::init(-1));
cl::opt<int> repeats("repeats", cl::desc("Timed runs per pass, at least"),
                     cl::init(5));
cl::opt<double> minTimeMs("min-time-ms",
                          cl::desc("Keep timing a pass until this long"),
                          cl::init(50));

int myRank = 0, ranks = 1; // this process and all of them

/// Prints on rank 0 only.
raw_ostream &out() { return myRank == 0 ? errs() : nulls(); }

[[noreturn]] void fail(const Twine &message) {
  out() << "hd-profile: error: " << message << "\n";
  hdrt::profileFinalize();
  std::exit(1);
}

/// This host's processor, as the database names the device.
std::string deviceName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model = "unknown cpu";
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      model = StringRef(line).split(':').second.trim().str();
      break;
    }
  return formatv("{0}, {1} processes on {2} cores", model, ranks,
                 std::thread::hardware_concurrency())
      .str();
}

/// Writes through a temporary file and a rename, so a failure leaves the
/// previous file intact and never a partial one.
void writeAtomically(StringRef path, StringRef text) {
  std::string tmp = (path + ".tmp").str();
  std::error_code ec;
  {
    raw_fd_ostream os(tmp, ec);
    if (ec)
      fail("cannot write '" + tmp + "': " + ec.message());
    os << text;
    os.close();
    if (os.has_error())
      fail("cannot write '" + tmp + "': " + os.error().message());
  }
  if ((ec = sys::fs::rename(tmp, path))) {
    sys::fs::remove(tmp);
    fail("cannot write '" + path + "': " + ec.message());
  }
}

/// The database already in the output file, which is extended, never
/// silently replaced; empty when there is none.
hd::ProfileDB existingDatabase() {
  if (!sys::fs::exists(output))
    return {};
  Expected<hd::ProfileDB> old = hd::ProfileDB::load(output);
  if (!old)
    fail("cannot reuse '" + output + "': " + toString(old.takeError()) +
         " (remove it or choose another -o)");
  return std::move(*old);
}

/// A progress bar with an ETA on a terminal, plain lines on a pipe.
class Progress {
public:
  explicit Progress(size_t total)
      : total_(total),
        tty_(myRank == 0 && sys::Process::StandardErrIsDisplayed()),
        start_(std::chrono::steady_clock::now()) {}

  void step(size_t done, size_t measured, const std::string &what) {
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
            .count();
    if (!tty_) {
      out() << formatv("hd-profile: [{0}/{1}] {2}\n", done, total_, what);
      return;
    }
    // The ETA extrapolates the time per measured entry; reused ones are
    // free.
    double eta = measured ? elapsed / measured * (total_ - done) : 0;
    const int width = 30;
    int filled = total_ ? int(width * done / total_) : width;
    out() << formatv("\r[{0}{1}] {2}/{3}  ETA {4:f1} s  {5,-40}",
                     std::string(filled, '='), std::string(width - filled, ' '),
                     done, total_, eta, StringRef(what).take_front(40));
    if (done == total_)
      out() << "\n";
    out().flush();
  }

private:
  size_t total_;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
};

int profileModel() {
  mlir::DialectRegistry registry;
  hd::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  SourceMgr sources;
  mlir::SourceMgrDiagnosticHandler handler(sources, &context,
                                           myRank == 0 ? errs() : nulls());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(input, sources, &context);
  if (!module)
    fail("cannot read the model '" + input + "'");
  if (devices < 0) {
    Expected<hd::Machine> machine = hd::loadMachine(machineName);
    if (!machine)
      fail(toString(machine.takeError()));
    devices = machine->numDevices();
  }
  if (devices < 1)
    fail("--devices must be at least 1");
  FailureOr<std::vector<hd::ModelJob>> jobs = hd::modelJobs(*module, devices);
  if (mlir::failed(jobs))
    fail("cannot profile '" + input + "'");

  if (emitJobs) {
    std::string text;
    for (const hd::ModelJob &m : *jobs)
      text += hdrt::jobToText(m.job) + "\n";
    if (myRank == 0)
      writeAtomically(output, text);
    out() << formatv("hd-profile: {0} jobs for {1} devices -> {2}\n",
                     jobs->size(), devices.getValue(), output);
    return 0;
  }
  hd::ProfileDB db = existingDatabase();
  const std::string backend = "cpu", device = deviceName();
  Progress progress(jobs->size());
  size_t measured = 0, reused = 0;
  for (size_t i = 0; i < jobs->size(); ++i) {
    hd::ModelJob &m = (*jobs)[i];
    hdrt::ProfileJob &job = m.job;
    std::string what = formatv("{0} {1} on {2}", m.op, m.layer,
                               hd::ParallelConfig{job.request.degrees}.str());
    if (db.find(job.signature, job.tile, backend, device)) {
      ++reused;
      progress.step(i + 1, measured, what + ": reused");
      continue;
    }
    job.request.repeats = repeats;
    job.request.minSeconds = minTimeMs / 1e3;
    // Every process measures at once, as they compute at once in a run.
    hdrt::profileBarrier();
    hdrt::LayerProfile p = hdrt::profileLayer(job.request);
    if (!p.error.empty())
      fail("layer '" + m.layer + "': " + p.error);
    db.insert({job.signature, job.tile, backend, device, p.fwdMs, p.bwdMs,
               p.updateMs});
    ++measured;
    progress.step(
        i + 1, measured,
        formatv("{0}: fwd {1:f3} ms, bwd {2:f3} ms", what, p.fwdMs, p.bwdMs)
            .str());
  }
  if (myRank == 0)
    writeAtomically(output, db.toJSON());
  out() << formatv("hd-profile: {0} entries for {1} devices ({2} measured, "
                   "{3} reused) -> {4}\n",
                   jobs->size(), devices.getValue(), measured, reused, output);
  return 0;
}

/// Reads what hdrt-profile-cuda wrote: `# backend B`, `# device D`, then
/// one job line per layer with its forward, backward and update times.
int importProfileTimes() {
  auto text = MemoryBuffer::getFile(importTimes);
  if (!text)
    fail("cannot read '" + importTimes + "': " + text.getError().message());
  hd::ProfileDB db = existingDatabase();
  std::string backend, device;
  size_t added = 0, number = 0;
  SmallVector<StringRef> lines;
  (*text)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : lines) {
    ++number;
    auto where = [&] {
      return formatv("{0}:{1}: ", importTimes, number).str();
    };
    if (line.consume_front("# backend ")) {
      backend = line.trim().str();
      continue;
    }
    if (line.consume_front("# device ")) {
      device = line.trim().str();
      continue;
    }
    std::string error;
    hdrt::ProfileJob job;
    if (backend.empty() || device.empty())
      fail(where() + "times before the '# backend' and '# device' lines");
    if (!hdrt::jobFromText(line.str(), job, error))
      fail(where() + error);
    if (!job.times)
      fail(where() + "a job without its three times");
    const std::array<double, 3> &ms = *job.times;
    db.insert({job.signature, job.tile, backend, device, ms[0], ms[1], ms[2]});
    ++added;
  }
  writeAtomically(output, db.toJSON());
  out() << formatv("hd-profile: {0} entries for {1} ({2}) -> {3}\n", added,
                   device, backend, output);
  return 0;
}

/// The base machine with what `host` measured: its rates, and its links
/// where it measured them.
hd::Machine calibratedMachine(const hdrt::HostProfile &host) {
  Expected<hd::Machine> base = hd::loadMachine(machineName);
  if (!base)
    fail(toString(base.takeError()));
  hd::Machine m = *base;
  m.name = m.name + "-calibrated";
  // Measured speeds: the dense roof is what a convolution reached, so the
  // efficiency factor is already in it.
  m.peakGflops = host.denseGflops;
  m.efficiency = 1.0;
  // The workloads run in fp32 only: the base's nominal low-precision rates
  // beside a measured fp32 one would price bf16 against the wrong roof.
  // Without them, the search refuses those precisions on this machine.
  m.peakGflopsBf16 = 0;
  m.peakGflopsFp16 = 0;
  m.memGbps = host.memGbps;
  m.launchUs = host.launchUs;
  m.stragglerFraction = host.stragglerFraction;
  if (!host.linksMeasured)
    return m;
  m.nodes = 1;
  m.devicesPerNode = host.ranks;
  const hdrt::LinkProfile &links = host.links;
  m.latencyUs = links.latencyUs;
  m.intraNodeGbps = links.p2pGbps;
  m.deviceGbps = links.p2pGbps;
  m.interNodeGbps = links.p2pGbps;
  m.allReduceGbps = links.allReduceGbps;
  m.allReduceCurve = links.allReduceCurve;
  // The exchange's time beyond its messages is its copies.
  // (The calibration exchanges fp32 tiles.)
  if (double copying = links.exchangeSeconds - links.messageSeconds;
      copying > 0)
    m.copyGbps = hd::CostModel::transferCopyBytes(links.exchangeBox,
                                                  links.exchangeSentBytes, 4) /
                 copying / 1e9;
  // Every speed above was measured with all the processes busy on these
  // cores: the cost model scales layers with fewer tasks from it.
  m.coresPerNode = host.cores;
  // The CPU runtime sums gradients beside backward where each rank has a
  // core to spare (--overlap-sync auto); on one core the sums take the
  // kernels' time and add up.
  m.syncOverlap = m.coresPerNode >= 2 * int64_t(host.ranks);
  return m;
}

void reportCalibration(const hd::Machine &m, const hdrt::HostProfile &host) {
  out() << formatv("hd-profile: calibrated {0} processes: {1:f1} GFLOP/s "
                   "dense, {2:f1} GB/s memory, {3:f1} us per kernel, MPI "
                   "{4:f1} us latency, {5:f2} GB/s point-to-point, {6:f2} "
                   "GB/s all-reduce, {7:f1} GB/s transfer copies, {8} cores, "
                   "stragglers +{9:f1}% -> {10}\n",
                   host.ranks, m.peakGflops, m.memGbps, m.launchUs,
                   m.latencyUs, m.intraNodeGbps, m.allReduceGbps, m.copyGbps,
                   m.coresPerNode, 100 * m.stragglerFraction, output);
}

int calibrate() {
  if (ranks < 2)
    fail("calibrate needs at least 2 MPI processes (mpirun -np 2 ...)");
  hdrt::HostProfile host =
      hdrt::profileHost(hd::calibrationWorkloads(hdrt::profileBackend()));
  if (!host.error.empty())
    fail(host.error);
  hd::Machine m = calibratedMachine(host);
  if (myRank == 0)
    writeAtomically(output, hd::machineToJSON(m));
  reportCalibration(m, host);
  return 0;
}

/// What hdrt-profile calibrate measured on another machine (a GPU's).
int importDeviceCalibration() {
  auto text = MemoryBuffer::getFile(importCalibration);
  if (!text)
    fail("cannot read '" + importCalibration +
         "': " + text.getError().message());
  hdrt::HostProfile host;
  std::string error;
  if (!hdrt::hostProfileFromText((*text)->getBuffer().str(), host, error))
    fail(importCalibration + ": " + error);
  hd::Machine m = calibratedMachine(host);
  writeAtomically(output, hd::machineToJSON(m));
  out() << formatv("hd-profile: {0} ({1}, {2} processes): {3:f1} GFLOP/s "
                   "dense, {4:f1} GB/s memory, {5:f1} us per kernel; links "
                   "{6} -> {7}\n",
                   host.device, host.backend, host.ranks, m.peakGflops,
                   m.memGbps, m.launchUs,
                   host.linksMeasured ? std::string("measured")
                                      : "of " + machineName.getValue(),
                   output);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  myRank = hdrt::profileInit(&argc, &argv, &ranks);
  // Only rank 0 reports command-line errors.
  if (myRank != 0)
    cl::ParseCommandLineOptions(argc, argv, "", &nulls());
  else
    cl::ParseCommandLineOptions(argc, argv,
                                "hd-profile: measure layers and this host "
                                "for hd's cost model\n");
  if (importTimes.empty() && importCalibration.empty() && input.empty())
    fail("give a model, `calibrate`, --import-times=FILE or "
         "--import-calibration=FILE");
  int rc = !importTimes.empty()         ? importProfileTimes()
           : !importCalibration.empty() ? importDeviceCalibration()
           : input == "calibrate"       ? calibrate()
                                        : profileModel();
  hdrt::profileFinalize();
  return rc;
}
