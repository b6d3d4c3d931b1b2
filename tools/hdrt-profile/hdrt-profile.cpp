//===- hdrt-profile.cpp - time profile jobs where there is no MLIR --------===//
//
//   hdrt-profile-cuda jobs.txt -o times.txt [--repeats N] [--min-time-ms T]
//   hdrt-profile-cuda calibrate -o calibration.txt
//
// Times every job that `hd-profile --emit-jobs` wrote (one layer's tile per
// line) with the runtime this program links, on a machine that has the GPU
// but not MLIR, and writes the lines back with their forward, backward and
// update milliseconds, under `# backend` and `# device` lines.
// `hd-profile --import-times` puts them into a profile database. The second
// measures the device's dense and memory rates and launch cost (and, under
// mpirun, the links between the processes) for `hd-profile
// --import-calibration`. Links only the runtime.
//
//===----------------------------------------------------------------------===//

#include "CalibrationWorkloads.h"

#include "hdrt/Profile.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace {

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "hdrt-profile: error: %s\n", message.c_str());
  hdrt::profileFinalize();
  std::exit(1);
}

} // namespace

int main(int argc, char **argv) {
  int ranks = 1;
  int rank = hdrt::profileInit(&argc, &argv, &ranks);
  std::string input, output;
  int repeats = 5;
  double minMs = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        fail(a + " needs a value");
      return argv[++i];
    };
    if (a == "-o")
      output = value();
    else if (a == "--repeats")
      repeats = std::atoi(value().c_str());
    else if (a == "--min-time-ms")
      minMs = std::atof(value().c_str());
    else if (!a.empty() && a[0] != '-' && input.empty())
      input = a;
    else
      fail("usage: hdrt-profile-cuda jobs.txt -o times.txt [--repeats N] "
           "[--min-time-ms T], or calibrate -o calibration.txt");
  }
  if (input == "calibrate" && !output.empty()) {
    hdrt::HostProfile host = hdrt::profileHost(
        hd::calibrationWorkloads(hdrt::profileBackend()));
    if (!host.error.empty())
      fail(host.error);
    if (rank == 0) {
      std::string tmp = output + ".tmp";
      std::ofstream out(tmp);
      out << hdrt::hostProfileToText(host);
      out.close();
      if (!out || std::rename(tmp.c_str(), output.c_str()) != 0)
        fail("cannot write '" + output + "'");
      std::printf("hdrt-profile: %s (%s): %.1f GFLOP/s dense, %.1f GB/s "
                  "memory, %.1f us per kernel -> %s\n",
                  host.device.c_str(), host.backend.c_str(), host.denseGflops,
                  host.memGbps, host.launchUs, output.c_str());
    }
    hdrt::profileFinalize();
    return 0;
  }
  if (input.empty() || output.empty() || repeats < 1)
    fail("usage: hdrt-profile-cuda jobs.txt -o times.txt [--repeats N] "
         "[--min-time-ms T]");
  std::ifstream in(input);
  if (!in)
    fail("cannot read '" + input + "'");
  std::string tmp = output + ".tmp";
  std::ofstream out(tmp);
  if (!out)
    fail("cannot write '" + tmp + "'");
  out << "# backend " << hdrt::profileBackend() << "\n# device "
      << hdrt::profileDevice() << "\n";
  std::string line, error;
  size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    hdrt::ProfileJob job;
    if (!hdrt::jobFromText(line, job, error))
      fail(input + ":" + std::to_string(number) + ": " + error);
    job.request.repeats = repeats;
    job.request.minSeconds = minMs / 1e3;
    hdrt::LayerProfile p = hdrt::profileLayer(job.request);
    if (!p.error.empty())
      fail("layer '" + job.request.name + "': " + p.error);
    job.times = {p.fwdMs, p.bwdMs, p.updateMs};
    out << hdrt::jobToText(job) << "\n";
    std::fprintf(stderr, "hdrt-profile: [%zu] %s: fwd %.3f ms, bwd %.3f ms\n",
                 number, job.request.name.c_str(), p.fwdMs, p.bwdMs);
  }
  out.close();
  if (!out || std::rename(tmp.c_str(), output.c_str()) != 0)
    fail("cannot write '" + output + "'");
  hdrt::profileFinalize();
  return 0;
}
