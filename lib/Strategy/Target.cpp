//===- Target.cpp - the machine, devices and strategy of a plan -----------===//
//
// Resolves the names of Target.h: the strategy's, the machine's (built-in
// or a JSON file), the device count against the machine's, and the profile
// database the machine names unless the user names another.
//
//===----------------------------------------------------------------------===//

#include "hd/Strategy/Target.h"

#include "llvm/Support/FormatVariadic.h"

#include <optional>

using namespace llvm;

namespace hd {

Expected<Target> resolveTarget(const TargetOptions &options) {
  auto fail = [](const Twine &message) {
    return createStringError(inconvertibleErrorCode(), message.str());
  };
  Target t;
  std::optional<StrategyKind> kind = parseStrategyKind(options.strategy);
  if (!kind)
    return fail("unknown strategy '" + options.strategy + "'; use " +
                strategyChoices());
  t.strategy = *kind;
  Expected<Machine> machine = loadMachine(options.machine);
  if (!machine)
    return machine.takeError();
  t.machine = std::move(*machine);
  t.devices = options.devices == -1 ? t.machine.numDevices() : options.devices;
  if (t.devices < 1)
    return fail(
        formatv("devices={0}: the device count must be at least 1", t.devices));
  if (t.devices > t.machine.numDevices())
    return fail(formatv("devices={0} exceeds the {1} devices of machine '{2}' "
                        "({3} nodes x {4})",
                        t.devices, t.machine.numDevices(), t.machine.name,
                        t.machine.nodes, t.machine.devicesPerNode));
  std::optional<Precision> precision = parsePrecision(options.precision);
  if (!precision)
    return fail("precision=" + options.precision +
                ": unknown precision; use fp32, bf16 or fp16");
  t.precision = *precision;
  if (t.machine.peakGflopsIn(t.precision) <= 0)
    return fail(formatv("precision={0}: machine '{1}' has no {0} rate "
                        "(peak_gflops_{0}): its devices do not compute in {0}",
                        precisionName(t.precision), t.machine.name));
  std::optional<Precision> sync = parsePrecision(options.gradientSync);
  if (!sync || *sync == Precision::F16)
    return fail("grad_sync=" + options.gradientSync +
                ": gradients are summed in fp32 or bf16");
  if (*sync == Precision::BF16 && t.precision != Precision::BF16)
    return fail(formatv("grad_sync=bf16 needs precision=bf16 (not {0})",
                        precisionName(t.precision)));
  t.gradientSync = *sync;
  std::string profile =
      options.profile.empty() ? t.machine.profile : options.profile;
  if (!profile.empty()) {
    Expected<ProfileDB> db = ProfileDB::load(profile);
    if (!db)
      return db.takeError();
    t.profile = std::move(*db);
  }
  return t;
}

} // namespace hd
