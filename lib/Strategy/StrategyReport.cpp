//===- StrategyReport.cpp - strategy reports: JSON, table, DOT ------------===//
//
// The report as the three things people read (JSON, a table, a picture),
// the files they go to, and the JSON read back as a strategy.
//
//===----------------------------------------------------------------------===//

#include "hd/Strategy/StrategyReport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace hd {

namespace {

json::Object configJSON(const ParallelConfig &c) {
  static const char *const names[] = {"n", "c", "h", "w"};
  json::Object o;
  for (size_t i = 0; i < c.degrees.size() && i < 4; ++i)
    o[names[i]] = c.degrees[i];
  return o;
}

/// What a split looks like at a glance: data, model, spatial or a mix.
std::string splitKind(const ParallelConfig &c) {
  const auto &d = c.degrees;
  bool n = d[0] > 1, ch = d.size() > 1 && d[1] > 1,
       hw = d.size() > 2 && (d[2] > 1 || d[3] > 1);
  if (!n && !ch && !hw)
    return "single";
  if (n && !ch && !hw)
    return "sample";
  if (!n && ch && !hw)
    return "channel";
  if (!n && !ch && hw)
    return "spatial";
  return "mixed";
}

/// Names come from models: escape them for DOT strings.
std::string dotEscape(StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

} // namespace

std::string reportToJSON(const StrategyReport &r) {
  json::Array layers;
  for (const LayerEntry &l : r.layers) {
    json::Object o{
        {"name", l.name},
        {"op", l.op},
        {"config", configJSON(l.config)},
        {"tasks", l.config.tasks()},
        {"compute_type", precisionTypeName(l.numerics.compute)},
        {"output_type", precisionTypeName(l.numerics.output)},
        {"compute_ms", l.cost.cost.computeMs},
        {"sync_ms", l.cost.cost.syncMs},
        {"in_transfer_ms", l.cost.inTransferMs},
        {"in_transfer_bytes", l.cost.inTransferBytes},
        {"mem_bytes", l.cost.memBytes},
        {"time_source", l.cost.cost.measured ? "profile" : "analytic"}};
    if (l.runnerUp)
      o["runner_up"] = json::Object{{"config", configJSON(*l.runnerUp)},
                                    {"extra_ms", l.runnerUpExtraMs}};
    layers.push_back(std::move(o));
  }
  json::Object root{{"model", r.model},
                    {"model_hash", r.modelHash},
                    {"machine", r.machine},
                    {"devices", r.devices},
                    {"strategy", strategyName(r.strategy)},
                    {"batch", r.batch},
                    {"precision", precisionName(r.precision)},
                    {"grad_sync", precisionName(r.gradientSync)},
                    {"predicted_ms", r.cost.totalMs()},
                    {"compute_ms", r.cost.computeMs},
                    {"transfer_ms", r.cost.transferMs},
                    {"sync_ms", r.cost.syncMs},
                    {"exposed_sync_ms", r.cost.exposedSyncMs},
                    {"images_per_s", r.imagesPerSecond()},
                    {"comm_bytes", r.cost.commBytes},
                    {"peak_mem_bytes", r.cost.peakMemBytes},
                    {"capacity_bytes", r.capacityBytes},
                    {"fits", r.fits()},
                    {"search_ms", r.searchMs},
                    {"layers", std::move(layers)}};
  if (r.search)
    root["search"] =
        json::Object{{"exact", r.search->exact},
                     {"lower_bound_ms", r.search->lowerBound},
                     {"node_eliminations", r.search->nodeEliminations},
                     {"edge_eliminations", r.search->edgeEliminations},
                     {"leaf_eliminations", r.search->leafEliminations},
                     {"remaining_nodes", r.search->remainingNodes},
                     {"enumerated", r.search->enumerated},
                     {"largest_factor", r.search->largestFactor},
                     {"capacity_binds", r.search->capacityBinds},
                     {"subproblems", r.search->subproblems},
                     {"rounds", r.search->rounds},
                     {"exact_configs", r.search->exactConfigs},
                     {"dropped_configs", r.search->droppedConfigs},
                     {"all_configs", r.search->allConfigs}};
  return formatv("{0:2}", json::Value(std::move(root))).str() + "\n";
}

std::string reportTable(const StrategyReport &r) {
  std::string s;
  raw_string_ostream os(s);
  os << format("%-36s %-21s %-20s %5s %10s %10s %9s %9s\n", "layer", "op",
               "config", "tasks", "compute ms", "transfer", "sync ms",
               "mem MiB");
  for (const LayerEntry &l : r.layers) {
    // A mixed-precision program's layers say what they compute in.
    std::string op = l.op;
    if (r.precision != Precision::F32)
      op += std::string(" ") + precisionTypeName(l.numerics.compute);
    os << format("%-36s %-21s %-20s %5lld %10.3f %10.3f %9.3f %9.1f\n",
                 l.name.substr(0, 36).c_str(), op.c_str(),
                 l.config.str().c_str(), (long long)l.config.tasks(),
                 l.cost.cost.computeMs, l.cost.inTransferMs, l.cost.cost.syncMs,
                 l.cost.memBytes / 1048576.0);
  }
  std::string sync = formatv("{0:f3}", r.cost.syncMs).str();
  if (r.cost.exposedSyncMs != r.cost.syncMs)
    sync += formatv(", {0:f3} of it exposed", r.cost.exposedSyncMs).str();
  std::string precision = precisionName(r.precision);
  if (r.gradientSync != Precision::F32)
    precision +=
        formatv(" (gradients summed in {0})", precisionName(r.gradientSync))
            .str();
  os << format("%s on %lld x %s in %s, strategy %s: %.3f ms per iteration "
               "(compute %.3f, transfer %.3f, sync %s), %.0f images/s, "
               "%.3f GB moved, peak %.1f MiB per device of %.1f MiB%s, "
               "search %.1f ms\n",
               r.model.c_str(), (long long)r.devices, r.machine.c_str(),
               precision.c_str(), strategyName(r.strategy), r.cost.totalMs(),
               r.cost.computeMs, r.cost.transferMs, sync.c_str(),
               r.imagesPerSecond(), r.cost.commBytes * 1e-9,
               r.cost.peakMemBytes / 1048576.0, r.capacityBytes / 1048576.0,
               r.fits() ? "" : " (does not fit)", r.searchMs);
  if (r.search && r.search->capacityBinds) {
    os << "note: the fastest strategy does not fit the devices' memory; "
          "this is the fastest that does";
    if (r.search->subproblems > 1)
      os << " (" << r.search->subproblems << " branch-and-bound subproblems)";
    os << "\n";
  }
  if (r.search && !r.search->exact)
    os << format("note: the search could not prove this strategy optimal "
                 "(a graph too wide for exact elimination, or a memory "
                 "capacity left unsettled); it is within %.3f ms (%.1f%%) "
                 "of optimal\n",
                 r.cost.serializedMs() - r.search->lowerBound,
                 100.0 * (r.cost.serializedMs() - r.search->lowerBound) /
                     std::max(1e-12, r.search->lowerBound));
  return s;
}

std::string reportToDOT(const StrategyReport &r) {
  static const std::map<std::string, const char *> colours = {
      {"single", "#d9d9d9"},
      {"sample", "#9ecae1"},
      {"channel", "#fdae6b"},
      {"spatial", "#a1d99b"},
      {"mixed", "#bcbddc"}};
  std::string s;
  raw_string_ostream os(s);
  os << "digraph strategy {\n"
     << "  label=\"" << dotEscape(r.model) << ": " << strategyName(r.strategy)
     << " on " << r.devices << " x " << r.machine
     << formatv(", {0:f3} ms per iteration", r.cost.totalMs())
     << "\\nblue: sample (n) split, orange: channel (c), green: spatial "
        "(h/w), purple: mixed, grey: one device\";\n"
     << "  node [shape=box, style=filled, fontname=\"Helvetica\"];\n";
  for (size_t i = 0; i < r.layers.size(); ++i) {
    const LayerEntry &l = r.layers[i];
    os << "  l" << i << " [label=\"" << dotEscape(l.name) << "\\n"
       << l.op << " " << l.config.str() << "\", fillcolor=\""
       << colours.at(splitKind(l.config)) << "\"];\n";
  }
  for (const LayerEdge &e : r.edges)
    os << "  l" << e.producer << " -> l" << e.consumer << ";\n";
  os << "}\n";
  return s;
}

Expected<ImportedStrategy> readStrategy(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> file = MemoryBuffer::getFile(path);
  if (!file)
    return createStringError(
        inconvertibleErrorCode(),
        (path + ": cannot read the strategy: " + file.getError().message())
            .str());
  return parseStrategy((*file)->getBuffer(), path);
}

Expected<ImportedStrategy> parseStrategy(StringRef text, StringRef origin) {
  auto fail = [&](const Twine &why) {
    return createStringError(inconvertibleErrorCode(),
                             (origin + ": " + why).str());
  };
  Expected<json::Value> parsed = json::parse(text);
  if (!parsed)
    return fail("not valid JSON: " + toString(parsed.takeError()));
  const json::Object *root = parsed->getAsObject();
  if (!root)
    return fail("a strategy must be a JSON object (an hd report)");
  ImportedStrategy s;
  std::optional<StringRef> hash = root->getString("model_hash");
  if (!hash)
    return fail("field 'model_hash' is missing");
  s.modelHash = hash->str();
  s.model = root->getString("model").value_or("").str();
  std::optional<int64_t> devices = root->getInteger("devices");
  if (!devices || *devices < 1)
    return fail("field 'devices' must be a positive integer");
  s.devices = *devices;
  const json::Array *layers = root->getArray("layers");
  if (!layers)
    return fail("field 'layers' must be an array");
  static const char *const dims[] = {"n", "c", "h", "w"};
  for (size_t i = 0; i < layers->size(); ++i) {
    const json::Object *l = (*layers)[i].getAsObject();
    std::optional<StringRef> name = l ? l->getString("name") : std::nullopt;
    const json::Object *config = l ? l->getObject("config") : nullptr;
    if (!name || !config)
      return fail(formatv("layer {0} needs a 'name' and a 'config'", i));
    for (const auto &kv : *config)
      if (!llvm::is_contained(dims, StringRef(kv.first)))
        return fail(formatv("layer '{0}': unknown config key '{1}' (use n, "
                            "c, h, w)",
                            *name, StringRef(kv.first)));
    std::vector<int64_t> degrees;
    for (const char *d : dims) {
      const json::Value *v = config->get(d);
      if (!v)
        continue;
      std::optional<int64_t> i = v->getAsInteger();
      if (!i)
        return fail(
            formatv("layer '{0}': degree {1} must be an integer", *name, d));
      if (*i < 1)
        return fail(formatv("layer '{0}': degree {1}={2} must be at least 1",
                            *name, d, *i));
      degrees.push_back(*i);
    }
    bool twoD = config->size() == 2 && config->get("n") && config->get("c");
    if (!twoD && config->size() != 4)
      return fail(formatv("layer '{0}': config needs n and c, plus h and w "
                          "for 4-D layers",
                          *name));
    s.layers.push_back({name->str(), degrees});
  }
  return s;
}

namespace {

/// Writes `text` to `path`; an error leaves no partial file behind.
Error writeFile(StringRef path, StringRef what, StringRef text) {
  std::error_code ec;
  ToolOutputFile file(path, ec, sys::fs::OF_None);
  if (ec)
    return createStringError(inconvertibleErrorCode(),
                             "cannot write the " + what + " '" + path +
                                 "': cannot open output file '" + path +
                                 "': " + ec.message());
  file.os() << text;
  file.keep();
  return Error::success();
}

} // namespace

Error writeReport(const StrategyReport &report, const ReportOutputs &outputs) {
  if (!outputs.json.empty())
    if (Error e = writeFile(outputs.json, "report", reportToJSON(report)))
      return e;
  if (!outputs.dot.empty())
    if (Error e = writeFile(outputs.dot, "DOT file", reportToDOT(report)))
      return e;
  if (outputs.print)
    errs() << reportTable(report);
  return Error::success();
}

} // namespace hd
