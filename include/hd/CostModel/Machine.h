//===- Machine.h - machine descriptions --------------------------*- C++ -*-===//
//
// Devices grouped into nodes. A transfer between two devices of one node uses
// that pair's intra-node link; a transfer between nodes goes through each
// node's network interface, shared by all the node's devices.
//
//===----------------------------------------------------------------------===//

#ifndef HD_COSTMODEL_MACHINE_H
#define HD_COSTMODEL_MACHINE_H

#include "hd/CostModel/Precision.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hd {

struct Machine {
  std::string name;
  int64_t nodes = 1;
  int64_t devicesPerNode = 1;
  /// Per device.
  double peakGflops = 0;  // fp32
  /// Dense rates in the low precisions (tensor cores, AVX512_BF16); 0:
  /// the device does not compute in that type.
  double peakGflopsBf16 = 0;
  double peakGflopsFp16 = 0;
  double memGbps = 0;     // memory bandwidth, GB/s
  double memGib = 0;      // memory capacity
  /// What the framework, the communication library and the driver take of
  /// it; below 0, the default: a tenth of memGib.
  double memReserveGib = -1;
  double launchUs = 0;    // fixed cost of one kernel
  /// Fraction of peak that dense kernels (convolution, GEMM) reach; the
  /// roofline's compute roof is peak * efficiency.
  double efficiency = 0.5;
  /// Links, GB/s per direction.
  double intraNodeGbps = 0; // one device pair inside a node
  double deviceGbps = 0;    // all of one device's intra-node links together
  double interNodeGbps = 0; // one node's network interface
  double latencyUs = 0;     // per message
  /// Measured bus bandwidth of an all-reduce among one node's devices (its
  /// MPI or NCCL algorithm, not necessarily a ring over the links); 0 models
  /// a ring over the links.
  double allReduceGbps = 0;
  /// The same measured at several sizes: (bytes, GB/s), bytes ascending.
  /// Where given it replaces allReduceGbps, interpolated in log(bytes),
  /// and gradients below the runtime's bucket (CostModel.h) are summed in
  /// buckets: they pay the bucket's rate and share its latency.
  std::vector<std::pair<double, double>> allReduceCurve;
  /// Hosts whose devices are processes sharing cores (CPU machines that
  /// hd-profile calibrate describes): the cores of one node. Layer times
  /// are then taken as measured with every process of the node busy, and a
  /// layer with fewer tasks than processes shares the cores with fewer of
  /// them. 0: every device has its own processor.
  int64_t coresPerNode = 0;
  /// How much longer than its mean time a layer split over several devices
  /// takes, until its tasks meet at the next transfer or statistics sum:
  /// the step waits for the slowest device, and a shared host's jitter
  /// makes one slower each time (hd-profile calibrate measures it). t_c of
  /// such layers is scaled by 1 + this. 0: devices keep pace.
  double stragglerFraction = 0;
  /// Bytes per second the runtime's own copies and adds move (read plus
  /// written): around a transfer (the local part, packing, unpacking,
  /// backward's adds) and the adds of shared gradients. hd-profile
  /// calibrate measures it through the runtime's exchange; 0: memGbps.
  double copyGbps = 0;
  /// Whether the runtime sums gradients beside the backward pass (the CUDA
  /// backend's communication stream; CPU ranks with a core to spare, as
  /// hd-profile calibrate finds). The predicted step then waits only for
  /// the sums the rest of backward and the updates do not hide
  /// (evaluateStrategy). false: they add up, as in the paper.
  bool syncOverlap = false;
  /// Optional measured layer times (a profile database file).
  std::string profile;

  int64_t numDevices() const { return nodes * devicesPerNode; }
  /// The peak rate in `p`; 0 where the device has none.
  double peakGflopsIn(Precision p) const {
    switch (p) {
    case Precision::BF16:
      return peakGflopsBf16;
    case Precision::F16:
      return peakGflopsFp16;
    case Precision::F32:
      break;
    }
    return peakGflops;
  }
  int64_t nodeOf(int64_t device) const { return device / devicesPerNode; }

  /// The bytes of a device a strategy may use: memGib less the reserve.
  int64_t capacityBytes() const {
    double reserve = memReserveGib >= 0 ? memReserveGib : memGib / 10;
    return int64_t((memGib - reserve) * 1073741824.0);
  }
};

/// The compiled-in machines: "cpu", "p100-cluster", "h200-node".
std::vector<std::string> builtinMachineNames();

/// A built-in name or the path of a machine JSON file. Errors name the file
/// and the offending field.
llvm::Expected<Machine> loadMachine(llvm::StringRef nameOrPath);

/// Parses a machine description; `origin` names it in errors.
llvm::Expected<Machine> parseMachine(llvm::StringRef json,
                                     llvm::StringRef origin);

/// The machine as JSON, in the format parseMachine reads.
std::string machineToJSON(const Machine &machine);

} // namespace hd

#endif // HD_COSTMODEL_MACHINE_H
