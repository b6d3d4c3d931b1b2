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

/// A built-in machine: its name and the text of its JSON file.
struct BuiltinMachine {
  const char *name;
  const char *json;
};

/// The files of lib/CostModel/machines/ (their README says where each
/// figure comes from), embedded by the build in the order
/// lib/CostModel/CMakeLists.txt lists them. They are parsed like a user's
/// file, so a built-in is exactly what the same file would load, and the
/// tools read no file for them wherever they are installed.
const BuiltinMachine builtinMachines[] = {
#include "BuiltinMachines.inc"
};

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
  std::vector<std::string> names;
  for (const BuiltinMachine &builtin : builtinMachines)
    names.push_back(builtin.name);
  return names;
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
      {"peak_gflops_bf16", &Machine::peakGflopsBf16, false},
      {"peak_gflops_fp16", &Machine::peakGflopsFp16, false},
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
  for (const BuiltinMachine &builtin : builtinMachines)
    if (nameOrPath == builtin.name)
      return parseMachine(builtin.json,
                          formatv("built-in machine '{0}'", builtin.name).str());
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
  if (m.peakGflopsBf16 > 0)
    o["peak_gflops_bf16"] = m.peakGflopsBf16;
  if (m.peakGflopsFp16 > 0)
    o["peak_gflops_fp16"] = m.peakGflopsFp16;
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
