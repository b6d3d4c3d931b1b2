//===- HostCalibration.cpp - this host's links and speeds -----------------===//
//
// What the cost model's machine description needs of a host of MPI
// processes, measured with the runtime's own code while every process runs:
// point-to-point latency and bandwidth, a redistribution through the
// runtime's exchange against plain messages, the gradient all-reduce's rate
// over sizes, the kernels' dense, memory-bound and launch speeds (on the
// layers the caller picks), and how much a layer split over the processes
// waits for the slowest.
//
//===----------------------------------------------------------------------===//

#include "ProfiledLayer.h"

#include "hdrt/mpi/Exchange.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace hdrt {

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
        MPI_Irecv(to, int(toCounts[peer]), MPI_FLOAT, peer, 0, MPI_COMM_WORLD,
                  &requests.back());
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
    linkSeconds =
        std::min(linkSeconds, slowestSeconds(2 * copies, [&](int i) {
                   messages(out[i], sends, in[i], receives); // forward
                   messages(in[i], receives, out[i], sends); // backward
                 }));
    exchangeSeconds = std::min(
        exchangeSeconds, slowestSeconds(2 * copies, [&](int i) {
          mpi::exchangeForward(MPI_COMM_WORLD, plan, side, tiles[i], inputs[i]);
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

namespace {

/// Every rank runs the same layer at once, then they meet, as the tasks of
/// a layer meet at its next transfer or statistics sum: the step waits for
/// the slowest. Returns how much longer, as a fraction of the mean run,
/// the meeting comes than the mean run and an idle barrier: the jitter a
/// shared host adds to every layer split over its processes.
double stragglerFraction(const LayerProfileRequest &r) {
  std::unique_ptr<exec::Program> program = profiledProgram(r);
  Device &device = profilingDevice();
  auto run = [&] {
    program->forward(0);
    device.fence();
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
  // At most a whole run: a host so busy that the meeting comes later than
  // that (other work time-sliced in) is not what the processes add, and
  // the machine file would not load.
  return std::clamp((meanMet - meanIdle - meanRun) / meanRun, 0.0, 1.0);
}

} // namespace

HostProfile profileHost(const HostWorkloads &w) {
  HostProfile host;
  MPI_Comm_size(MPI_COMM_WORLD, &host.ranks);
  host.cores = std::max(1u, std::thread::hardware_concurrency());
  host.backend = profileBackend();
  host.device = profileDevice();
  if (host.ranks > 1) {
    host.links = profileLinks();
    if (!host.links.error.empty()) {
      host.error = host.links.error;
      return host;
    }
    host.linksMeasured = true;
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
  host.denseGflops = w.denseFlops / (time(w.dense) * 1e-3) / 1e9;
  host.memGbps = w.streamBytes / (time(w.stream) * 1e-3) / 1e9;
  host.launchUs = time(w.tiny) * 1e3;

  // More processes than cores: time slicing sets the pace, and the layer
  // profile, measured with every process busy, already has it.
  if (unsigned(host.ranks) <= host.cores) {
    try {
      host.stragglerFraction = stragglerFraction(w.dense);
    } catch (const std::exception &e) {
      host.error = e.what();
    }
  }
  return host;
}

} // namespace hdrt
