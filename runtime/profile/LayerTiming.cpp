//===- LayerTiming.cpp - one layer's passes, timed as a step runs them ----===//
//
// A layer's forward, backward and update on one tile, through the same
// calls a compiled program makes, with the caches as a step leaves them:
// the layer's memory flushed, what its neighbour has just written read
// back in.
//
//===----------------------------------------------------------------------===//

#include "ProfiledLayer.h"

#include "exec/LayerImpl.h"
#include "exec/Streams.h"

#include "hdrt/Random.h"
#include "hdrt/common/Caches.h"
#include "hdrt/hdrt.h"

#include <algorithm>

namespace hdrt {

using exec::Edge;
using exec::Layer;
using exec::Program;

int profileInit(int *argc, char ***argv, int *ranks) {
  int initialized = 0, rank = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, ranks);
  exec::pickThreads();
  return rank;
}

void profileFinalize() { MPI_Finalize(); }

void profileBarrier() { MPI_Barrier(MPI_COMM_WORLD); }

namespace {

/// The milliseconds of `body` as a training step sees them: at least
/// `repeats` runs after a warm-up, continuing until `minSeconds` have
/// passed (at most 100 runs), each after `prepare` has set the caches as a
/// step leaves them; then the mean of the runs without the fastest and the
/// slowest tenth. A step is a sum over layers, so it follows each layer's
/// mean, not its median: the jitter of a shared host leans to the slow
/// side (a time slice lost to a neighbour), which the median drops. The
/// trimmed tenths drop the rare stalls that taking the median step drops
/// too.
template <typename Prepare, typename Body>
double typicalMs(int repeats, double minSeconds, Prepare prepare, Body body) {
  body(); // warm-up: oneDNN builds its kernels on the first call
  std::vector<double> times;
  double start = MPI_Wtime();
  while (int(times.size()) < repeats ||
         (MPI_Wtime() - start < minSeconds && times.size() < 100)) {
    prepare();
    double t = MPI_Wtime();
    body();
    times.push_back((MPI_Wtime() - t) * 1e3);
  }
  std::sort(times.begin(), times.end());
  size_t trim = times.size() / 10;
  double sum = 0;
  for (size_t i = trim; i < times.size() - trim; ++i)
    sum += times[i];
  return sum / double(times.size() - 2 * trim);
}

} // namespace

namespace {

std::shared_ptr<Device> &sharedDevice() {
  static std::shared_ptr<Device> device;
  if (!device)
    device = makeDevice(DeviceOptions());
  return device;
}

/// The operands standing in for producers' outputs, and every output
/// gradient, filled with numbers; then a step's own inputs.
void fillStandIns(Program &program) {
  // stepInputs loads the real graph inputs; the stand-ins once, here.
  for (Edge &e : program.network().edges())
    if (e.hasBox && e.producer < 0 && e.wantsGradient) {
      std::vector<float> host(size_t(e.box.volume()));
      program.inputs().training().images(0, e.source.shape, e.box, host.data());
      e.inStorage.upload(host.data());
    }
  program.stepInputs(0);
  uint64_t seed = program.options().seed;
  for (Layer &l : program.network().layers()) {
    std::vector<float> host(size_t(l.grad.size()));
    for (size_t i = 0; i < host.size(); ++i)
      host[i] =
          2.0f * uniform(seed, exec::streamOf(exec::kImages, 1), i) - 1.0f;
    l.grad.upload(host.data());
  }
}

/// After the device's evictFromCaches: brings back into the caches what a
/// neighbour layer has just written when a step reaches this one: the
/// operands standing in for producers' outputs before forward, the output
/// gradients (the consumers') before backward.
void warmStandIns(Program &program, bool backward) {
  if (!program.device().hostAccessible())
    return;
  auto touch = [](const float *data, int64_t count) {
    volatile char sink = touchLines(reinterpret_cast<const char *>(data),
                                    size_t(count) * sizeof(float));
    (void)sink;
  };
  if (backward) {
    for (Layer &l : program.network().layers())
      touch(l.grad.data(), l.grad.size());
    return;
  }
  for (Edge &e : program.network().edges())
    if (e.hasBox && e.producer < 0 && e.wantsGradient)
      touch(e.in, e.box.volume());
}

} // namespace

Device &profilingDevice() { return *sharedDevice(); }
std::string profileDevice() { return profilingDevice().describe(); }
std::string profileBackend() { return profilingDevice().backend(); }

bool writesWholeInputGradients(LayerKind kind) {
  return exec::layerImpl(kind).writesWholeInputGradients();
}

std::unique_ptr<Program> profiledProgram(const LayerProfileRequest &r) {
  int64_t tasks = 1;
  for (int64_t d : r.degrees)
    tasks *= d;
  exec::Options options;
  exec::Profiling profiling;
  profiling.zeroOutputGradient = r.zeroOutputGradient;
  auto program = std::make_unique<Program>(options, tasks, r.name, "profile",
                                           sharedDevice(), profiling);
  exec::Network &network = program->network();
  network.defineLayer(0, r.layer.kind, r.name, static_cast<int>(r.shape.size()),
                      r.shape.data(), r.degrees.data(),
                      int64_t(r.operands.size()), r.layer.data(),
                      int64_t(r.layer.bytes()));
  for (size_t i = 0; i < r.operands.size(); ++i) {
    const ProfileOperand &o = r.operands[i];
    network.defineEdge(
        int64_t(i), 0, int64_t(i), o.labels ? HDRT_LABELS : HDRT_IMAGES,
        static_cast<int>(o.shape.size()), o.shape.data(), nullptr, 0);
    // As it does for a layer inside the network, backward computes the
    // gradient of a graph-input operand that stands for a producer.
    if (o.gradient && !o.labels)
      network.edge(int64_t(i)).wantsGradient = true;
  }
  program->prepare();
  fillStandIns(*program);
  return program;
}

LayerProfile profileLayer(const LayerProfileRequest &r) {
  LayerProfile result;
  try {
    std::unique_ptr<Program> owned = profiledProgram(r);
    Program &program = *owned;
    // Each pass finds the layer's memory out of the caches, as in a step
    // where the other layers ran since it last touched it (flushed: a VM
    // may keep little of the cache it reports, here 480 MiB, and a cache
    // that favours lines touched repeatedly keeps a re-run layer's data
    // through reads of other data; evicting 16 MiB by reading timed
    // ResNet-50's batch norms at half their in-step time). Only what the
    // layer's neighbour has just written is read back in.
    Device &device = profilingDevice();
    auto freshCaches = [&](bool backward) {
      return [&, backward] {
        device.evictFromCaches();
        warmStandIns(program, backward);
      };
    };
    auto beforeUpdate = [&] { device.evictFromCaches(); };
    // A step also loads the layer's share of the images and labels, and
    // zeroes its output gradient where its readers add into it: part of its
    // forward here.
    // Each run ends when the device has finished it.
    result.fwdMs = typicalMs(r.repeats, r.minSeconds, freshCaches(false), [&] {
      program.stepInputs(0);
      program.forward(0);
      device.fence();
    });
    fillStandIns(program); // output gradients again, not zeros
    result.bwdMs = typicalMs(r.repeats, r.minSeconds, freshCaches(true), [&] {
      program.backward(0);
      device.fence();
    });
    result.updateMs = typicalMs(r.repeats, r.minSeconds, beforeUpdate, [&] {
      program.sgdUpdate(0);
      device.fence();
    });
  } catch (const std::exception &e) {
    result.error = e.what();
  }
  return result;
}

} // namespace hdrt
