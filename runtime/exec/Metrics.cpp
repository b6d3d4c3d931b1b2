//===- Metrics.cpp - the --metrics JSON file ------------------------------===//
//
// Per-step losses and times, and the mean step split into compute,
// transfer and sync (averaged over ranks). The first step is a warm-up
// (oneDNN builds its kernels then) and is left out of the means when there
// are others.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace hdrt::exec {

namespace {

std::string escaped(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

} // namespace

void Program::writeMetrics() const {
  size_t first = stepMs_.size() > 1 ? 1 : 0;
  size_t timed = stepMs_.size() - first;
  // Mean per-step seconds of each category on this rank, then over ranks.
  enum { Step, Compute, Kernel, Transfer, Sync, Fields };
  double mine[Fields] = {}, all[Fields] = {};
  for (size_t i = first; i < stepMs_.size(); ++i) {
    const TimerTotals &t = stepTotals_[i];
    mine[Step] += stepMs_[i] / 1e3;
    mine[Compute] += t.of(Category::Compute);
    mine[Kernel] += t.kernel;
    mine[Transfer] += t.of(Category::Transfer);
    mine[Sync] += t.of(Category::Sync);
  }
  MPI_Reduce(mine, all, Fields, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank_ != 0 || options_.metrics.empty())
    return;
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  auto ms = [&](int field) {
    return timed ? all[field] / ranks / double(timed) * 1e3 : 0.0;
  };
  std::string tmp = options_.metrics + ".tmp";
  FILE *f = std::fopen(tmp.c_str(), "w");
  if (!f)
    throw Error("cannot write the metrics file '" + options_.metrics +
                "': " + std::strerror(errno));
  std::fprintf(f, "{\n  \"model\": \"%s\",\n  \"model_hash\": \"%s\",\n",
               escaped(modelName_).c_str(), escaped(modelHash_).c_str());
  std::fprintf(f,
               "  \"devices\": %lld,\n  \"batch\": %lld,\n  \"first_step\": "
               "%lld,\n  \"seed\": %llu,\n  \"lr\": %.9g,\n",
               static_cast<long long>(devices_),
               static_cast<long long>(batch_),
               static_cast<long long>(firstStep_ + 1),
               static_cast<unsigned long long>(options_.seed), options_.lr);
  std::fprintf(f, "  \"losses\": [");
  for (size_t i = 0; i < losses_.size(); ++i)
    std::fprintf(f, "%s%.9g", i ? ", " : "", losses_[i]);
  std::fprintf(f, "],\n  \"step_ms\": [");
  for (size_t i = 0; i < stepMs_.size(); ++i)
    std::fprintf(f, "%s%.4f", i ? ", " : "", stepMs_[i]);
  double step = ms(Step);
  std::fprintf(f, "],\n  \"timed_steps\": %zu,\n", timed);
  std::fprintf(f, "  \"mean_step_ms\": %.4f,\n", step);
  std::fprintf(f, "  \"images_per_s\": %.3f,\n",
               step > 0 ? double(batch_) / (step / 1e3) : 0.0);
  std::fprintf(f, "  \"compute_ms\": %.4f,\n", ms(Compute));
  std::fprintf(f, "  \"kernel_ms\": %.4f,\n", ms(Kernel));
  std::fprintf(f, "  \"transfer_ms\": %.4f,\n", ms(Transfer));
  std::fprintf(f, "  \"sync_ms\": %.4f,\n", ms(Sync));
  std::fprintf(f, "  \"overhead_ms\": %.4f\n}\n",
               step - ms(Kernel) - ms(Transfer) - ms(Sync));
  bool ok = std::fflush(f) == 0;
  ok = std::fclose(f) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), options_.metrics.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error("cannot write the metrics file '" + options_.metrics +
                "': " + std::strerror(errno));
  }
}

namespace {

const char *categoryName(Category c) {
  switch (c) {
  case Category::Compute:
    return "compute";
  case Category::Transfer:
    return "transfer";
  case Category::Sync:
    return "sync";
  default:
    return "step";
  }
}

} // namespace

/// Chrome's trace event format (chrome://tracing, ui.perfetto.dev): one
/// process per rank, one thread per category, times in microseconds from
/// the start of the traced step on each rank.
void Program::writeTrace() const {
  if (options_.trace.empty())
    return;
  std::string events;
  for (const Span &s : traced_) {
    char head[160];
    std::snprintf(head, sizeof(head),
                  "{\"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"ts\": "
                  "%.3f, \"dur\": %.3f, \"cat\": \"%s\", \"name\": \"",
                  rank_, int(s.category), s.start * 1e6,
                  (s.end - s.start) * 1e6, categoryName(s.category));
    events += head + escaped(s.name) + "\"},\n";
  }
  char meta[160];
  std::snprintf(meta, sizeof(meta),
                "{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_name\", "
                "\"args\": {\"name\": \"rank %d\"}},\n",
                rank_, rank_);
  events += meta;
  for (Category c : {Category::Other, Category::Compute, Category::Transfer,
                     Category::Sync}) {
    std::snprintf(meta, sizeof(meta),
                  "{\"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"name\": "
                  "\"thread_name\", \"args\": {\"name\": \"%s\"}},\n",
                  rank_, int(c), categoryName(c));
    events += meta;
  }
  // Rank 0 gathers every rank's events.
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int length = static_cast<int>(events.size());
  std::vector<int> lengths(ranks), offsets(ranks);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0,
             MPI_COMM_WORLD);
  std::string all;
  if (rank_ == 0) {
    int total = 0;
    for (int r = 0; r < ranks; ++r) {
      offsets[r] = total;
      total += lengths[r];
    }
    all.resize(total);
  }
  MPI_Gatherv(events.data(), length, MPI_CHAR, all.data(), lengths.data(),
              offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank_ != 0)
    return;
  if (!all.empty())
    all.erase(all.size() - 2); // the last ",\n"
  std::string tmp = options_.trace + ".tmp";
  FILE *f = std::fopen(tmp.c_str(), "w");
  bool ok = f && std::fprintf(f, "{\"displayTimeUnit\": \"ms\", "
                                 "\"traceEvents\": [\n%s\n]}\n",
                              all.c_str()) > 0;
  ok = f && std::fclose(f) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), options_.trace.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error("cannot write the trace file '" + options_.trace +
                "': " + std::strerror(errno));
  }
}

} // namespace hdrt::exec
