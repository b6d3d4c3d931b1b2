//===- Profile.cpp - timing layers and links for hd-profile ---------------===//

#include "hdrt/Profile.h"

#include "LayerImpl.h"
#include "Program.h"

#include "hdrt/common/Caches.h"
#include "hdrt/hdrt.h"
#include "hdrt/mpi/Exchange.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

namespace hdrt {

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

/// One device for every layer profiled: making a GPU's handles and streams
/// costs more than timing a layer.
std::shared_ptr<Device> &profilingDevice() {
  static std::shared_ptr<Device> device;
  if (!device)
    device = makeDevice(DeviceOptions());
  return device;
}

} // namespace

std::string profileDevice() { return profilingDevice()->describe(); }
std::string profileBackend() { return profilingDevice()->backend(); }

bool writesWholeInputGradients(LayerKind kind) {
  return exec::layerImpl(kind).writesWholeInputGradients();
}

namespace {

/// The request's layer alone in a program, as task 0, its operands filled.
std::unique_ptr<Program> profiledProgram(const LayerProfileRequest &r) {
  int64_t tasks = 1;
  for (int64_t d : r.degrees)
    tasks *= d;
  exec::Options options;
  auto program = std::make_unique<Program>(options, tasks, r.name, "profile",
                                           profilingDevice());
  program->enableProfiling(r.zeroOutputGradient);
  program->defineLayer(0, r.layer.kind, r.name,
                       static_cast<int>(r.shape.size()), r.shape.data(),
                       r.degrees.data(), int64_t(r.operands.size()),
                       r.layer.data(), int64_t(r.layer.bytes()));
  for (size_t i = 0; i < r.operands.size(); ++i) {
    const ProfileOperand &o = r.operands[i];
    program->defineEdge(
        int64_t(i), 0, int64_t(i), o.labels ? HDRT_LABELS : HDRT_IMAGES,
        static_cast<int>(o.shape.size()), o.shape.data(), nullptr, 0);
    if (o.gradient && !o.labels)
      program->wantInputGradient(int64_t(i));
  }
  program->prepare();
  program->fillForProfile();
  return program;
}

} // namespace

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
    Device &device = *profilingDevice();
    auto freshCaches = [&](bool backward) {
      return [&, backward] {
        device.evictFromCaches();
        program.warmForProfile(backward);
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
      program.fence();
    });
    program.fillForProfile(); // output gradients again, not zeros
    result.bwdMs = typicalMs(r.repeats, r.minSeconds, freshCaches(true), [&] {
      program.backward(0);
      program.fence();
    });
    result.updateMs = typicalMs(r.repeats, r.minSeconds, beforeUpdate, [&] {
      program.sgdUpdate(0);
      program.fence();
    });
  } catch (const std::exception &e) {
    result.error = e.what();
  }
  return result;
}

namespace {

/// Several copies of a buffer, used in turn, so that each use finds its
/// data out of cache, as a training step does (other layers ran since).
struct ColdBuffers {
  std::vector<std::vector<float>> copies;
  ColdBuffers(int count, size_t elements)
      : copies(count, std::vector<float>(elements, 1.0f)) {}
  float *operator[](int i) { return copies[i % copies.size()].data(); }
};

/// The slowest rank's seconds per call of `body(round)`, after one call
/// that warms MPI's connections.
template <typename Body> double slowestSeconds(int rounds, Body body) {
  body(0);
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int i = 1; i <= rounds; ++i)
    body(i);
  double seconds = (MPI_Wtime() - start) / rounds, slowest = 0;
  MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

/// A redistribution as compiled programs' transfers make them: an
/// activation moving from a sample split to a channel split, every rank
/// sending to and receiving from every other at once, forward and back, on
/// data out of cache. Timed twice: as plain messages between buffers (the
/// links), and through the runtime's exchange (the messages plus the
/// copies around them: the local part, packing, unpacking, and backward's
/// adds). Fills the link and copy fields of `p`.
void profileRedistribution(int rank, int ranks, LinkProfile &p) {
  // Room for every rank along n and c, however many there are.
  auto atLeast = [&](int64_t size) {
    return size * ((ranks + size - 1) / size);
  };
  const int64_t shape[4] = {atLeast(8), atLeast(64), 56, 56};
  auto part = [&](int dim, int task) {
    Box b;
    b.rank = 4;
    std::copy(shape, shape + 4, b.hi);
    b.lo[dim] = shape[dim] * task / ranks;
    b.hi[dim] = shape[dim] * (task + 1) / ranks;
    return b;
  };
  // The plan, and per peer the elements this rank sends it and receives.
  std::vector<mpi::Move> plan;
  std::vector<int64_t> sends(ranks, 0), receives(ranks, 0);
  int64_t sent = 0, received = 0;
  for (int src = 0; src < ranks; ++src)
    for (int dst = 0; dst < ranks; ++dst) {
      Box box = intersect(part(0, src), part(1, dst));
      if (src == dst || box.volume() == 0)
        continue;
      plan.push_back({src, dst, box});
      if (src == rank)
        sent += sends[dst] = box.volume();
      if (dst == rank)
        received += receives[src] = box.volume();
    }
  const int copies = 8;
  ColdBuffers out(copies, size_t(std::max<int64_t>(sent, 1))),
      in(copies, size_t(std::max<int64_t>(received, 1)));
  auto messages = [&](float *from, const std::vector<int64_t> &fromCounts,
                      float *to, const std::vector<int64_t> &toCounts) {
    std::vector<MPI_Request> requests;
    for (int peer = 0; peer < ranks; ++peer) {
      if (toCounts[peer] > 0) {
        requests.emplace_back();
        MPI_Irecv(to, int(toCounts[peer]), MPI_FLOAT, peer, 0,
                  MPI_COMM_WORLD, &requests.back());
        to += toCounts[peer];
      }
      if (fromCounts[peer] > 0) {
        requests.emplace_back();
        MPI_Isend(from, int(fromCounts[peer]), MPI_FLOAT, peer, 0,
                  MPI_COMM_WORLD, &requests.back());
        from += fromCounts[peer];
      }
    }
    MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  };
  Box tileBox = part(0, rank), inBox = part(1, rank);
  mpi::Side side{&tileBox, &inBox};
  ColdBuffers tiles(copies, size_t(tileBox.volume())),
      inputs(copies, size_t(inBox.volume()));
  // The copies are the difference of two timings, so each is the least of
  // three, taken in turn: one pair on a host busy with other work once
  // timed the exchange faster than its own messages.
  double linkSeconds = INFINITY, exchangeSeconds = INFINITY;
  for (int trial = 0; trial < 3; ++trial) {
    linkSeconds = std::min(linkSeconds, slowestSeconds(2 * copies, [&](int i) {
      messages(out[i], sends, in[i], receives);  // forward
      messages(in[i], receives, out[i], sends);  // backward
    }));
    exchangeSeconds =
        std::min(exchangeSeconds, slowestSeconds(2 * copies, [&](int i) {
          mpi::exchangeForward(MPI_COMM_WORLD, plan, side, tiles[i],
                               inputs[i]);
          mpi::exchangeBackward(MPI_COMM_WORLD, plan, side, tiles[i],
                                inputs[i]);
        }));
  }
  p.p2pGbps = 2 * 4.0 * double(sent) / linkSeconds / 1e9;
  p.exchangeSeconds = exchangeSeconds;
  p.messageSeconds = linkSeconds;
  p.exchangeBox = inBox.volume();
  p.exchangeSentBytes = 4.0 * double(sent);
}

/// All-reduce bus bandwidth as NCCL reports it (2 (n - 1) / n of the data
/// crosses each rank's link), through the runtime's gradient sync, on
/// `bytes` of gradients out of cache: real models sync 100-550 MB a step in
/// layers of a few KiB (summed in the runtime's 4 MiB buckets) to 400 MiB.
double allReduceGbps(int ranks, size_t bytes) {
  const size_t elements = bytes / 4;
  // Out of cache, in at most 512 MiB of copies.
  const int copies = int(std::clamp<size_t>((512 << 20) / bytes, 2, 8));
  ColdBuffers grads(copies, elements);
  double seconds = slowestSeconds(2 * copies, [&](int i) {
    mpi::allReduceSum(MPI_COMM_WORLD, grads[i], int64_t(elements));
  });
  return 2.0 * (ranks - 1) / ranks * 4.0 * double(elements) / seconds / 1e9;
}

} // namespace

LinkProfile profileLinks() {
  LinkProfile p;
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks < 2) {
    p.error = "calibrate needs at least 2 MPI processes (mpirun -np 2 ...)";
    return p;
  }
  // Ping-pong between ranks 0 and 1: latency from 8-byte messages.
  auto pingPong = [&](size_t bytes, int rounds) {
    std::vector<char> buf(bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int i = 0; i < rounds; ++i) {
      if (rank == 0) {
        MPI_Send(buf.data(), int(bytes), MPI_CHAR, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf.data(), int(bytes), MPI_CHAR, 1, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(buf.data(), int(bytes), MPI_CHAR, 0, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        MPI_Send(buf.data(), int(bytes), MPI_CHAR, 0, 0, MPI_COMM_WORLD);
      }
    }
    double oneWay = (MPI_Wtime() - start) / (2.0 * rounds);
    MPI_Bcast(&oneWay, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return oneWay;
  };
  pingPong(8, 10); // warm-up
  p.latencyUs = pingPong(8, 200) * 1e6;
  profileRedistribution(rank, ranks, p);
  for (size_t bytes = 256 << 10; bytes <= (256u << 20); bytes *= 4) {
    p.allReduceCurve.push_back({double(bytes), allReduceGbps(ranks, bytes)});
    if (bytes == 16 << 20) // the single figure, for machines without a curve
      p.allReduceGbps = p.allReduceCurve.back().second;
  }
  return p;
}

} // namespace hdrt

namespace hdrt {

namespace {

/// Every rank runs the same layer at once, then they meet, as the tasks of
/// a layer meet at its next transfer or statistics sum: the step waits for
/// the slowest. Returns how much longer, as a fraction of the mean run,
/// the meeting comes than the mean run and an idle barrier: the jitter a
/// shared host adds to every layer split over its processes.
double stragglerFraction(const LayerProfileRequest &r) {
  std::unique_ptr<Program> program = profiledProgram(r);
  Device &device = *profilingDevice();
  auto run = [&] {
    program->forward(0);
    program->fence();
  };
  run(); // warm-up
  const int rounds = 40;
  double idle = 0, own = 0, met = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < rounds; ++i) {
    double t = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    idle += MPI_Wtime() - t;
  }
  for (int i = 0; i < rounds; ++i) {
    device.evictFromCaches();
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    run();
    double t1 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    own += t1 - t0;
    met += MPI_Wtime() - t0;
  }
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  double sums[3] = {idle, own, met}, total[3];
  MPI_Allreduce(sums, total, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double meanRun = total[1] / ranks, meanMet = total[2] / ranks,
         meanIdle = total[0] / ranks;
  return std::max(0.0, (meanMet - meanIdle - meanRun) / meanRun);
}

} // namespace

HostProfile profileHost() {
  HostProfile host;
  host.links = profileLinks();
  if (!host.links.error.empty()) {
    host.error = host.links.error;
    return host;
  }
  auto time = [&](LayerProfileRequest r) {
    r.repeats = 10;
    r.minSeconds = 0.2;
    profileBarrier();
    LayerProfile p = profileLayer(r);
    if (!p.error.empty())
      host.error = p.error;
    double ms = p.fwdMs;
    // Rank 0's figure, so every rank writes the same machine.
    MPI_Bcast(&ms, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return ms;
  };
  LayerProfileRequest conv;
  Conv2dDesc conv3x3{};
  conv3x3.out_channels = 64;
  conv3x3.kernel[0] = conv3x3.kernel[1] = 3;
  conv3x3.stride[0] = conv3x3.stride[1] = 1;
  for (int64_t &pad : conv3x3.padding)
    pad = 1;
  conv3x3.dilation[0] = conv3x3.dilation[1] = 1;
  conv3x3.groups = 1;
  conv3x3.bias = 0;
  conv.layer = LayerDescriptor::of(conv3x3);
  conv.name = "calibrate/conv3x3";
  conv.shape = {8, 64, 32, 32};
  conv.degrees = {1, 1, 1, 1};
  conv.operands = {{{8, 64, 32, 32}, false, true}};
  double convFlops = 2.0 * 8 * 64 * 32 * 32 * 64 * 9;
  host.denseGflops = convFlops / (time(conv) * 1e-3) / 1e9;

  LayerProfileRequest relu;
  relu.layer.kind = LayerKind::Relu;
  relu.name = "calibrate/relu";
  relu.shape = {16, 64, 64, 64};
  relu.degrees = {1, 1, 1, 1};
  relu.operands = {{relu.shape, false, true}};
  double bytes = 2.0 * 4 * 16 * 64 * 64 * 64;
  host.memGbps = bytes / (time(relu) * 1e-3) / 1e9;

  relu.shape = {1, 8, 1, 1};
  relu.operands = {{relu.shape, false, true}};
  host.launchUs = time(relu) * 1e3;

  // More processes than cores: time slicing sets the pace, and the layer
  // profile, measured with every process busy, already has it.
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (unsigned(ranks) <= std::max(1u, std::thread::hardware_concurrency())) {
    try {
      host.stragglerFraction = stragglerFraction(conv);
    } catch (const std::exception &e) {
      host.error = e.what();
    }
  }
  return host;
}

} // namespace hdrt
