//===- Machine.cpp - machine descriptions ---------------------------------===//

#include "hd/CostModel/Machine.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <vector>

using namespace llvm;

namespace hd {

namespace {

/// The paper's machine: 4 nodes of 4 P100 (10.6 TFLOP/s fp32, 732 GB/s,
/// 16 GiB). NVLink 1.0 inside a node: 20 GB/s per direction per GPU pair,
/// three peers per GPU. 100 Gb/s EDR InfiniBand: 12.5 GB/s per direction
/// per node. The efficiency is calibrated so that one P100 predicts the
/// paper's single-GPU throughputs (docs/results.md).
Machine p100Cluster() {
  Machine m;
  m.name = "p100-cluster";
  m.nodes = 4;
  m.devicesPerNode = 4;
  m.peakGflops = 10600;
  m.memGbps = 732;
  m.memGib = 16;
  m.launchUs = 10;
  m.efficiency = 0.45;
  m.intraNodeGbps = 20;
  m.deviceGbps = 60;
  m.interNodeGbps = 12.5;
  m.latencyUs = 10;
  return m;
}

/// 8 x H200 SXM on NVSwitch: 67 TFLOP/s fp32 (no tensor cores), 4.8 TB/s,
/// 141 GB; NVLink 4 gives each GPU 450 GB/s per direction to any peer
/// through the switch. 400 Gb/s InfiniBand per node for multi-node runs.
Machine h200Node() {
  Machine m;
  m.name = "h200-node";
  m.nodes = 1;
  m.devicesPerNode = 8;
  m.peakGflops = 66900;
  m.memGbps = 4800;
  m.memGib = 141;
  m.launchUs = 5;
  m.efficiency = 0.5;
  m.intraNodeGbps = 450;
  m.deviceGbps = 450;
  m.interNodeGbps = 50;
  m.latencyUs = 5;
  return m;
}

/// This host's processes, one per device, talking through shared-memory
/// MPI. Nominal figures for one core with AVX-512 (oneDNN reaches about
/// 50 GFLOP/s per core on 3x3 convolutions); `hd-profile calibrate`
/// measures the real ones into a machine file.
Machine cpuHost() {
  Machine m;
  m.name = "cpu";
  m.nodes = 1;
  m.devicesPerNode = 4;
  m.peakGflops = 100;
  m.memGbps = 10;
  m.memGib = 4;
  m.launchUs = 2;
  m.efficiency = 0.5;
  m.intraNodeGbps = 5;
  m.deviceGbps = 5;
  m.interNodeGbps = 1;
  m.latencyUs = 2;
  return m;
}

Error fieldError(StringRef origin, StringRef field, const Twine &why) {
  return createStringError(inconvertibleErrorCode(),
                           formatv("{0}: field '{1}' {2}", origin, field,
                                   why.str())
                               .str());
}

struct FieldSpec {
  const char *name;
  double Machine::*number;
  bool required;
};

struct CountSpec {
  const char *name;
  int64_t Machine::*count;
  bool required;
};

} // namespace

std::vector<std::string> builtinMachineNames() {
  return {"cpu", "p100-cluster", "h200-node"};
}

Expected<Machine> parseMachine(StringRef text, StringRef origin) {
  Expected<json::Value> parsed = json::parse(text);
  if (!parsed)
    return createStringError(inconvertibleErrorCode(),
                             formatv("{0}: not valid JSON: {1}", origin,
                                     toString(parsed.takeError()))
                                 .str());
  const json::Object *obj = parsed->getAsObject();
  if (!obj)
    return createStringError(inconvertibleErrorCode(),
                             formatv("{0}: a machine description must be a "
                                     "JSON object",
                                     origin)
                                 .str());
  static const FieldSpec numbers[] = {
      {"peak_gflops", &Machine::peakGflops, true},
      {"mem_gbps", &Machine::memGbps, true},
      {"mem_gib", &Machine::memGib, true},
      {"launch_us", &Machine::launchUs, true},
      {"intra_node_gbps", &Machine::intraNodeGbps, true},
      {"inter_node_gbps", &Machine::interNodeGbps, true},
      {"latency_us", &Machine::latencyUs, true},
      {"efficiency", &Machine::efficiency, false},
      {"device_gbps", &Machine::deviceGbps, false},
      {"allreduce_gbps", &Machine::allReduceGbps, false},
      {"mem_reserve_gib", &Machine::memReserveGib, false},
      {"straggler_fraction", &Machine::stragglerFraction, false},
      {"copy_gbps", &Machine::copyGbps, false},
  };
  static const CountSpec counts[] = {
      {"nodes", &Machine::nodes, true},
      {"devices_per_node", &Machine::devicesPerNode, true},
      {"cores_per_node", &Machine::coresPerNode, false},
  };
  std::vector<StringRef> fields = {"name", "profile", "allreduce_curve",
                                   "sync_overlap"};
  for (const FieldSpec &f : numbers)
    fields.push_back(f.name);
  for (const CountSpec &f : counts)
    fields.push_back(f.name);
  // Unknown fields are errors: a typo must not silently fall back to a
  // default.
  for (const auto &kv : *obj) {
    StringRef key = kv.first;
    if (!llvm::is_contained(fields, key)) {
      std::string hint;
      unsigned best = 3;
      for (StringRef f : fields)
        if (unsigned d = key.edit_distance(f); d < best) {
          best = d;
          hint = f.str();
        }
      return fieldError(origin, key,
                        hint.empty() ? "is unknown"
                                     : "is unknown; did you mean '" + hint +
                                           "'?");
    }
  }

  Machine m;
  const json::Value *name = obj->get("name");
  if (!name || !name->getAsString() || name->getAsString()->empty())
    return fieldError(origin, "name", "must be a non-empty string");
  m.name = name->getAsString()->str();
  for (const CountSpec &f : counts) {
    const json::Value *v = obj->get(f.name);
    if (!v && !f.required)
      continue;
    std::optional<int64_t> i = v ? v->getAsInteger() : std::nullopt;
    if (!i || *i < 1 || *i > 1 << 16)
      return fieldError(origin, f.name,
                        "must be a positive integer (at most 65536)");
    m.*f.count = *i;
  }
  if (m.nodes * m.devicesPerNode > 1 << 16)
    return fieldError(origin, "nodes",
                      "times devices_per_node exceeds 65536 devices");
  m.deviceGbps = 0;
  for (const FieldSpec &f : numbers) {
    const json::Value *v = obj->get(f.name);
    if (!v) {
      if (f.required)
        return fieldError(origin, f.name, "is missing");
      continue;
    }
    std::optional<double> d = v->getAsNumber();
    if (!d || !std::isfinite(*d))
      return fieldError(origin, f.name, "must be a number");
    bool zeroOk = StringRef(f.name) == "launch_us" ||
                  StringRef(f.name) == "latency_us" ||
                  StringRef(f.name) == "mem_reserve_gib" ||
                  StringRef(f.name) == "straggler_fraction";
    if (*d < 0 || (*d == 0 && !zeroOk))
      return fieldError(origin, f.name,
                        zeroOk ? "must be >= 0" : "must be positive");
    m.*f.number = *d;
  }
  if (m.efficiency > 1)
    return fieldError(origin, "efficiency",
                      "is a fraction of peak and must be at most 1");
  if (m.stragglerFraction > 1)
    return fieldError(origin, "straggler_fraction",
                      "is a fraction of a layer's time and must be at most 1");
  if (m.memReserveGib >= m.memGib)
    return fieldError(origin, "mem_reserve_gib",
                      formatv("({0}) must be below mem_gib ({1})",
                              m.memReserveGib, m.memGib));
  if (m.deviceGbps == 0)
    m.deviceGbps = m.intraNodeGbps;
  if (m.deviceGbps < m.intraNodeGbps)
    return fieldError(origin, "device_gbps",
                      formatv("({0}) must be at least intra_node_gbps ({1}): "
                              "a device's links together carry at least one "
                              "link's traffic",
                              m.deviceGbps, m.intraNodeGbps));
  if (const json::Value *c = obj->get("allreduce_curve")) {
    const char *shape = "must be a non-empty list of [bytes, GB/s] pairs, "
                        "bytes ascending, both positive";
    const json::Array *points = c->getAsArray();
    if (!points || points->empty())
      return fieldError(origin, "allreduce_curve", shape);
    for (const json::Value &point : *points) {
      const json::Array *pair = point.getAsArray();
      std::optional<double> bytes, gbps;
      if (pair && pair->size() == 2) {
        bytes = (*pair)[0].getAsNumber();
        gbps = (*pair)[1].getAsNumber();
      }
      if (!bytes || !gbps || !(*bytes > 0) || !(*gbps > 0) ||
          !std::isfinite(*bytes) || !std::isfinite(*gbps) ||
          (!m.allReduceCurve.empty() &&
           *bytes <= m.allReduceCurve.back().first))
        return fieldError(origin, "allreduce_curve", shape);
      m.allReduceCurve.push_back({*bytes, *gbps});
    }
  }
  if (const json::Value *o = obj->get("sync_overlap")) {
    if (!o->getAsBoolean())
      return fieldError(origin, "sync_overlap", "must be true or false");
    m.syncOverlap = *o->getAsBoolean();
  }
  if (const json::Value *p = obj->get("profile")) {
    if (!p->getAsString())
      return fieldError(origin, "profile", "must be a file path string");
    m.profile = p->getAsString()->str();
  }
  return m;
}

Expected<Machine> loadMachine(StringRef nameOrPath) {
  if (nameOrPath == "cpu")
    return cpuHost();
  if (nameOrPath == "p100-cluster")
    return p100Cluster();
  if (nameOrPath == "h200-node")
    return h200Node();
  ErrorOr<std::unique_ptr<MemoryBuffer>> file =
      MemoryBuffer::getFile(nameOrPath);
  if (!file)
    return createStringError(
        inconvertibleErrorCode(),
        formatv("machine '{0}' is neither a built-in ({1}) nor a readable "
                "file: {2}",
                nameOrPath, join(builtinMachineNames(), ", "),
                file.getError().message())
            .str());
  return parseMachine((*file)->getBuffer(), nameOrPath);
}

std::string machineToJSON(const Machine &m) {
  json::Object o{{"name", m.name},
                 {"nodes", m.nodes},
                 {"devices_per_node", m.devicesPerNode},
                 {"peak_gflops", m.peakGflops},
                 {"mem_gbps", m.memGbps},
                 {"mem_gib", m.memGib},
                 {"launch_us", m.launchUs},
                 {"efficiency", m.efficiency},
                 {"intra_node_gbps", m.intraNodeGbps},
                 {"device_gbps", m.deviceGbps},
                 {"inter_node_gbps", m.interNodeGbps},
                 {"latency_us", m.latencyUs}};
  if (m.allReduceGbps > 0)
    o["allreduce_gbps"] = m.allReduceGbps;
  if (!m.allReduceCurve.empty()) {
    json::Array points;
    for (auto [bytes, gbps] : m.allReduceCurve)
      points.push_back(json::Array{bytes, gbps});
    o["allreduce_curve"] = std::move(points);
  }
  if (m.memReserveGib >= 0)
    o["mem_reserve_gib"] = m.memReserveGib;
  if (m.coresPerNode > 0)
    o["cores_per_node"] = m.coresPerNode;
  if (m.stragglerFraction > 0)
    o["straggler_fraction"] = m.stragglerFraction;
  if (m.copyGbps > 0)
    o["copy_gbps"] = m.copyGbps;
  if (m.syncOverlap)
    o["sync_overlap"] = true;
  if (!m.profile.empty())
    o["profile"] = m.profile;
  return formatv("{0:2}", json::Value(std::move(o))).str();
}

} // namespace hd
