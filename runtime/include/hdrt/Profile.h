//===- Profile.h - timing layers and links for hd-profile -------*- C++ -*-===//
//
// What the cost model needs measured, measured with the runtime's own code:
// one layer's forward, backward and parameter update on one tile (the same
// calls a compiled program makes), and the point-to-point and all-reduce
// speeds between this host's MPI processes. Plain C++: hd-profile (an MLIR
// tool) calls it; errors come back as text, never as exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_PROFILE_H
#define HDRT_PROFILE_H

#include "hdrt/LayerDesc.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hdrt {

/// Starts MPI (hd-profile may run under mpirun, so that every process
/// measures while the others compute, as in a real run). Returns the rank.
int profileInit(int *argc, char ***argv, int *ranks);
void profileFinalize();
/// Waits for every process: they measure at the same time.
void profileBarrier();

struct ProfileOperand {
  std::vector<int64_t> shape; // global
  bool labels = false;        // the loss's int32 labels
  bool gradient = true;       // backward computes its gradient
};

struct LayerProfileRequest {
  LayerDescriptor layer; // its kind and descriptor
  std::string name;
  std::vector<int64_t> shape;   // partitioned shape
  std::vector<int64_t> degrees; // the configuration
  std::vector<ProfileOperand> operands;
  /// At least this many timed runs after a warm-up, and more until
  /// `minSeconds` have passed (at most 100).
  int repeats = 5;
  double minSeconds = 0.05;
  /// Whether a step zeroes the layer's output gradient (its readers add
  /// into it rather than write it whole).
  bool zeroOutputGradient = true;
};

struct LayerProfile {
  double fwdMs = 0, bwdMs = 0, updateMs = 0; // trimmed means
  std::string error;                         // empty on success
};

/// Whether a layer of this kind overwrites its input gradients whole in its
/// backward, so that a step need not zero them for it (its only reader).
bool writesWholeInputGradients(LayerKind kind);

/// Times task 0 (the largest tile) of the layer under its configuration,
/// on this library's device (libhdrt: the host, libhdrt_cuda: a GPU).
LayerProfile profileLayer(const LayerProfileRequest &request);
/// The device profileLayer runs on ("NVIDIA H200", ...) and its backend.
std::string profileDevice();
std::string profileBackend();

/// A layer to time as one line of text, so that it can be timed on a
/// machine without MLIR: `hd-profile --emit-jobs` writes the lines,
/// `hdrt-profile-cuda` times them and appends each line's times,
/// `hd-profile --import-times` reads those into a database. Tab-separated:
/// signature, tile, name, kind, shape, degrees, the descriptor's fields by
/// name (descriptorToText), operands, then the forward, backward and update
/// milliseconds once timed.
struct ProfileJob {
  std::string signature;
  std::vector<int64_t> tile;
  LayerProfileRequest request;
  std::optional<std::array<double, 3>> times;
};

std::string jobToText(const ProfileJob &job);
/// Parses what jobToText wrote; false with a message on a malformed line.
bool jobFromText(const std::string &line, ProfileJob &job, std::string &error);

/// Point-to-point and all-reduce speeds between the MPI processes.
struct LinkProfile {
  double latencyUs = 0; // half a small round trip
  double p2pGbps = 0;   // sent bytes per second of messages
                        // between buffers out of cache
  /// One redistribution (a sample split to a channel split, forward and
  /// back) through the runtime's exchange, and as plain messages: the
  /// difference is the exchange's copies of a box of `exchangeBox`
  /// elements around `exchangeSentBytes` sent, per rank.
  double exchangeSeconds = 0, messageSeconds = 0;
  int64_t exchangeBox = 0;
  double exchangeSentBytes = 0;
  double allReduceGbps = 0; // bus bandwidth of the runtime's gradient
                            // all-reduce, data out of cache, on 16 MiB
  /// The same at sizes from 256 KiB to 256 MiB: (bytes, GB/s), ascending.
  /// MPI libraries change algorithms with the size, and the rate with them.
  std::vector<std::pair<double, double>> allReduceCurve;
  std::string error;
};

/// Collective: every rank calls it; rank 0's result is the one to use.
LinkProfile profileLinks();

/// This host's speeds as the cost model's machine description needs them,
/// measured while every process runs the same kernels.
struct HostProfile {
  LinkProfile links;
  double denseGflops = 0; // the dense workload's forward
  double memGbps = 0;     // the stream workload's bytes read and written
  double launchUs = 0;    // the tiny workload
  /// How much longer than its mean time a layer run by every process at
  /// once takes until they meet again: the slowest process's lead.
  double stragglerFraction = 0;
  /// Where it was measured: the processes, the host's cores, the backend
  /// and device; whether `links` were (two processes or more).
  int ranks = 1;
  unsigned cores = 1;
  std::string backend, device;
  bool linksMeasured = false;
  std::string error;
};

/// The layers profileHost times, which the caller picks for its cost
/// model: a compute-bound one and its FLOPs, a memory-bound one and the
/// bytes it reads and writes, and a tiny one whose time is the launch
/// cost. The compute-bound one, run by every process at once, also
/// measures the stragglers.
struct HostWorkloads {
  LayerProfileRequest dense;
  double denseFlops = 0;
  LayerProfileRequest stream;
  double streamBytes = 0;
  LayerProfileRequest tiny;
};

/// Collective. Measures the links where there are two processes or more.
HostProfile profileHost(const HostWorkloads &workloads);

/// A calibration as text, for a machine without MLIR (hdrt-profile
/// calibrate) to hand to hd-profile --import-calibration: `key value`
/// lines, the all-reduce curve as `allreduce BYTES GBPS` lines.
std::string hostProfileToText(const HostProfile &p);
/// Parses what hostProfileToText wrote; false with a message naming the
/// line on a malformed or incomplete file.
bool hostProfileFromText(const std::string &text, HostProfile &p,
                         std::string &error);

} // namespace hdrt

#endif // HDRT_PROFILE_H
