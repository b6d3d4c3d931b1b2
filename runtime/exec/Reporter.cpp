//===- Reporter.cpp - step lines, the metrics and the trace ---------------===//
//
// The metrics: per-step losses and times, the mean step split into
// compute, transfer, sync and input (averaged over ranks), each rank's peak
// device memory, and the evaluations. The first step is a warm-up (oneDNN
// builds its kernels then) and is left out of the means when there are
// others.
//
//===----------------------------------------------------------------------===//

#include "Reporter.h"

#include "Errors.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

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

/// Appends printf-style text.
[[gnu::format(printf, 2, 3)]] void appendf(std::string &out, const char *format,
                                           ...) {
  va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  int length = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  size_t at = out.size();
  out.resize(at + length + 1);
  std::vsnprintf(out.data() + at, length + 1, format, again);
  va_end(again);
  out.resize(at + length);
}

/// Writes `text` through a temporary file and a rename: never a partial
/// file. `what` names the file in the error.
void writeAtomically(const std::string &path, const std::string &text,
                     const char *what) {
  std::string tmp = path + ".tmp";
  FILE *f = std::fopen(tmp.c_str(), "w");
  bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = f && std::fclose(f) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    int error = errno;
    std::remove(tmp.c_str());
    throw Error(std::string("cannot write the ") + what + " '" + path +
                "': " + std::strerror(error));
  }
}

} // namespace

void Reporter::start(int64_t firstStep, int64_t lastStep, int64_t batch,
                     int64_t trainingSize) {
  firstStep_ = firstStep;
  lastStep_ = lastStep;
  batch_ = batch;
  trainingSize_ = trainingSize;
}

void Reporter::stepEnded(int64_t step, double loss, double seconds,
                         const TimerTotals &totals) {
  stepTotals_.push_back(totals);
  losses_.push_back(loss);
  stepMs_.push_back(seconds * 1e3);
  if (rank_ == 0 && !options_.quiet && (step + 1) % options_.logEvery == 0) {
    std::printf("step %lld loss %.6f %.1f images/s\n",
                static_cast<long long>(step + 1), loss,
                double(batch_) / seconds);
    std::fflush(stdout);
  }
  reportEpoch(step + 1);
}

void Reporter::evaluated(const Evaluation &e) {
  evaluations_.push_back(e);
  if (rank_ == 0) {
    std::printf("eval step %lld loss %.6f top1 %.4f top5 %.4f (%lld "
                "images)\n",
                static_cast<long long>(e.step), e.loss, e.top1, e.top5,
                static_cast<long long>(e.samples));
    std::fflush(stdout);
  }
}

namespace {

/// "1:02:03" or "2:03": a duration for people.
std::string clockText(double seconds) {
  long long s = static_cast<long long>(seconds + 0.5);
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof(text), "%lld:%02lld:%02lld", s / 3600,
                  s / 60 % 60, s % 60);
  else
    std::snprintf(text, sizeof(text), "%lld:%02lld", s / 60, s % 60);
  return text;
}

} // namespace

/// After a step that completes a pass over the training data: the pass's
/// mean loss and speed, and the time the run has left at that speed.
void Reporter::reportEpoch(int64_t step) {
  if (!trainingSize_ || rank_ != 0)
    return;
  int64_t before = (step - 1) * batch_ / trainingSize_,
          after = step * batch_ / trainingSize_;
  if (after == before)
    return;
  // The steps of this epoch that ran in this process.
  int64_t first =
      std::max<int64_t>(before * trainingSize_ / batch_, firstStep_);
  double loss = 0, seconds = 0;
  int64_t count = 0;
  for (int64_t s = first; s < step; ++s, ++count) {
    loss += losses_[size_t(s - firstStep_)];
    seconds += stepMs_[size_t(s - firstStep_)] / 1e3;
  }
  if (!count)
    return;
  // The run's epochs: up to the one its last step starts in (a step's
  // batch may spill a few samples into the next).
  int64_t epochs = (lastStep_ - 1) * batch_ / trainingSize_ + 1;
  double left = double(lastStep_ - step) * seconds / double(count);
  std::printf("epoch %lld/%lld done at step %lld: mean loss %.6f, %.0f "
              "images/s, %s left\n",
              static_cast<long long>(after), static_cast<long long>(epochs),
              static_cast<long long>(step), loss / double(count),
              double(count * batch_) / seconds, clockText(left).c_str());
  std::fflush(stdout);
}

void Reporter::writeMetrics(int64_t communicators) const {
  size_t first = stepMs_.size() > 1 ? 1 : 0;
  size_t timed = stepMs_.size() - first;
  // Mean per-step seconds of each category on this rank, then over ranks.
  enum {
    Step,
    Compute,
    Kernel,
    Transfer,
    Sync,
    Input,
    GradSync,
    GradSyncExposed,
    Fields
  };
  double mine[Fields] = {}, all[Fields] = {};
  for (size_t i = first; i < stepMs_.size(); ++i) {
    const TimerTotals &t = stepTotals_[i];
    mine[Step] += stepMs_[i] / 1e3;
    mine[Compute] += t.of(Category::Compute);
    mine[Kernel] += t.kernel;
    mine[Transfer] += t.of(Category::Transfer);
    mine[Sync] += t.of(Category::Sync);
    mine[Input] += t.of(Category::Input);
    mine[GradSync] += t.gradientSync;
    mine[GradSyncExposed] += t.gradientSyncExposed;
  }
  MPI_Reduce(mine, all, Fields, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  // Per rank: its device memory's high-water mark and the communicators
  // it made (MPI's and the device's own).
  enum { Peak, Communicators, PerRank };
  long long counts[PerRank] = {device_.peakBytes(), communicators};
  std::vector<long long> perRank(size_t(rank_ == 0 ? ranks * PerRank : 0));
  MPI_Gather(counts, PerRank, MPI_LONG_LONG, perRank.data(), PerRank,
             MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  if (rank_ != 0 || options_.metrics.empty())
    return;
  auto ms = [&](int field) {
    return timed ? all[field] / ranks / double(timed) * 1e3 : 0.0;
  };
  std::string j;
  appendf(j, "{\n  \"model\": \"%s\",\n  \"model_hash\": \"%s\",\n",
          escaped(network_.modelName()).c_str(),
          escaped(network_.modelHash()).c_str());
  appendf(j,
          "  \"devices\": %lld,\n  \"batch\": %lld,\n  \"first_step\": "
          "%lld,\n  \"seed\": %llu,\n  \"lr\": %.9g,\n",
          static_cast<long long>(network_.devices()),
          static_cast<long long>(batch_),
          static_cast<long long>(firstStep_ + 1),
          static_cast<unsigned long long>(options_.seed), options_.lr);
  appendf(j, "  \"losses\": [");
  for (size_t i = 0; i < losses_.size(); ++i)
    appendf(j, "%s%.9g", i ? ", " : "", losses_[i]);
  appendf(j, "],\n  \"step_ms\": [");
  for (size_t i = 0; i < stepMs_.size(); ++i)
    appendf(j, "%s%.4f", i ? ", " : "", stepMs_[i]);
  double step = ms(Step);
  appendf(j, "],\n  \"timed_steps\": %zu,\n", timed);
  appendf(j, "  \"mean_step_ms\": %.4f,\n", step);
  appendf(j, "  \"images_per_s\": %.3f,\n",
          step > 0 ? double(batch_) / (step / 1e3) : 0.0);
  appendf(j, "  \"compute_ms\": %.4f,\n", ms(Compute));
  appendf(j, "  \"kernel_ms\": %.4f,\n", ms(Kernel));
  appendf(j, "  \"transfer_ms\": %.4f,\n", ms(Transfer));
  appendf(j, "  \"sync_ms\": %.4f,\n", ms(Sync));
  appendf(j, "  \"grad_sync_ms\": %.4f,\n", ms(GradSync));
  appendf(j, "  \"grad_sync_exposed_ms\": %.4f,\n", ms(GradSyncExposed));
  // A rank's time in transfers is what it spends packing, posting, waiting
  // and unpacking; messages in flight between those calls are hidden.
  appendf(j, "  \"transfer_exposed_ms\": %.4f,\n", ms(Transfer));
  appendf(j, "  \"input_ms\": %.4f,\n", ms(Input));
  appendf(j, "  \"overhead_ms\": %.4f,\n",
          step - ms(Kernel) - ms(Transfer) - ms(Sync) - ms(Input));
  // A per-rank count: the largest, then every rank's.
  auto eachRank = [&](const char *name, int field) {
    long long most = 0;
    std::string list;
    for (int r = 0; r < ranks; ++r) {
      long long v = perRank[size_t(r * PerRank + field)];
      most = r ? std::max(most, v) : v;
      appendf(list, "%s%lld", r ? ", " : "", v);
    }
    appendf(j, "  \"%s\": %lld,\n  \"%s_per_rank\": [%s],\n", name, most, name,
            list.c_str());
  };
  eachRank("peak_mem_bytes", Peak);
  eachRank("communicators", Communicators);
  // The activation tiles rank 0 keeps in the device's blocked layout.
  long long blocked =
      std::count_if(network_.layers().begin(), network_.layers().end(),
                    [](const Layer &l) { return l.block > 1; });
  appendf(j, "  \"blocked_tiles\": %lld,\n", blocked);
  // The transfers whose messages are posted early (exec/Transfers.cpp).
  long long early =
      std::count_if(network_.edges().begin(), network_.edges().end(),
                    [](const Edge &e) { return bool(e.messages); });
  appendf(j, "  \"early_transfers\": %lld,\n", early);
  appendf(j, "  \"eval\": [");
  // A diverged model's evaluation loss is not finite: JSON's null.
  auto real = [](double v) {
    char text[32] = "null";
    if (std::isfinite(v))
      std::snprintf(text, sizeof text, "%.9g", v);
    return std::string(text);
  };
  for (size_t i = 0; i < evaluations_.size(); ++i) {
    const Evaluation &e = evaluations_[i];
    appendf(j,
            "%s\n    {\"step\": %lld, \"samples\": %lld, \"loss\": %s, "
            "\"top1\": %.9g, \"top5\": %.9g}",
            i ? "," : "", static_cast<long long>(e.step),
            static_cast<long long>(e.samples), real(e.loss).c_str(), e.top1,
            e.top5);
  }
  appendf(j, "%s]\n}\n", evaluations_.empty() ? "" : "\n  ");
  writeAtomically(options_.metrics, j, "metrics file");
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
  case Category::Input:
    return "input";
  default:
    return "step";
  }
}

} // namespace

/// Chrome's trace event format (chrome://tracing, ui.perfetto.dev): one
/// process per rank, one thread per category, times in microseconds from
/// the start of the traced step on each rank.
void Reporter::writeTrace() const {
  if (options_.trace.empty())
    return;
  std::string events;
  for (const Span &s : traced_)
    appendf(events,
            "{\"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, "
            "\"dur\": %.3f, \"cat\": \"%s\", \"name\": \"%s\"},\n",
            rank_, int(s.category), s.start * 1e6, (s.end - s.start) * 1e6,
            categoryName(s.category), escaped(s.name).c_str());
  appendf(events,
          "{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_name\", "
          "\"args\": {\"name\": \"rank %d\"}},\n",
          rank_, rank_);
  for (Category c : {Category::Other, Category::Compute, Category::Transfer,
                     Category::Sync, Category::Input})
    appendf(events,
            "{\"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"name\": "
            "\"thread_name\", \"args\": {\"name\": \"%s\"}},\n",
            rank_, int(c), categoryName(c));
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
  writeAtomically(options_.trace,
                  "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n" + all +
                      "\n]}\n",
                  "trace file");
}

} // namespace hdrt::exec
