//===- Timers.h - where a rank's step time goes -----------------*- C++ -*-===//
//
// Every moment of a step is charged to one category: compute (layer calls
// and the optimizer), transfer (hd.transfer exchanges), sync (gradient
// all-reduce, and the all-reduces inside batch norm and the loss) or input
// (waiting for the step's images and labels). Kernel
// time is the part of compute spent inside the kernels themselves; the rest
// of compute is the runtime's own work (copies, bookkeeping). On a GPU the
// times are the GPU's, from events in its stream: timing a step does not
// make it wait.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_EXEC_TIMERS_H
#define HDRT_EXEC_TIMERS_H

#include "hdrt/Device.h"

#include <mpi.h>

#include <string>
#include <vector>

namespace hdrt::exec {

enum class Category { Other, Compute, Transfer, Sync, Input, Count };

struct TimerTotals {
  double seconds[static_cast<int>(Category::Count)] = {};
  double kernel = 0;
  /// Gradient all-reduce: the part the step waited for (starting the sums
  /// and waiting for them before the update; inside sync), and the sums'
  /// whole time, overlapped with the backward pass or not.
  double gradientSyncExposed = 0, gradientSync = 0;

  double of(Category c) const { return seconds[static_cast<int>(c)]; }
};

/// A span of a traced step: what ran, in which category, when (seconds
/// since the step began).
struct Span {
  std::string name;
  Category category;
  double start, end;
};

/// A moment of the step: the host's clock, or a mark in an asynchronous
/// device's work (Device::markTime).
struct Moment {
  double host = 0;
  int64_t mark = -1;
};

class Timers {
public:
  /// A device whose work runs asynchronously (a GPU) is timed by its own
  /// marks, recorded in its work order and read when the totals are
  /// taken: nothing in the step waits for them. Null: the host's clock,
  /// for a device whose work is done when its calls return.
  Device *marking = nullptr;
  /// Spans of the traced step (`--trace`), when tracing.
  bool tracing = false;
  Moment origin;
  std::vector<Span> spans;

  /// Times `device`'s work by its marks from now on.
  void useMarks(Device *device) {
    marking = device;
    origin = since_ = now();
  }
  Moment now() const {
    return marking ? Moment{0, marking->markTime()} : Moment{MPI_Wtime(), -1};
  }
  /// Charges the time since the last switch to the current category.
  Category switchTo(Category next) {
    Moment at = now();
    charge(static_cast<int>(current_), since_, at);
    since_ = at;
    Category previous = current_;
    current_ = next;
    return previous;
  }
  void addKernel(Moment from, Moment to) { charge(kKernel, from, to); }
  void addSpan(std::string name, Category c, Moment from, Moment to) {
    if (marking)
      pendingSpans_.push_back({std::move(name), c, from, to});
    else
      spans.push_back(
          {std::move(name), c, from.host - origin.host, to.host - origin.host});
  }
  void addGradientSyncExposed(double seconds) {
    totals_.gradientSyncExposed += seconds;
  }
  /// Returns the totals since the last take and starts again. A marking
  /// device's times are read here (waiting for its last mark).
  TimerTotals take() {
    switchTo(current_);
    if (marking) {
      for (const Pending &p : pending_)
        add(p.target, marking->secondsBetween(p.from.mark, p.to.mark));
      for (const PendingSpan &p : pendingSpans_)
        spans.push_back({p.name, p.category,
                         marking->secondsBetween(origin.mark, p.from.mark),
                         marking->secondsBetween(origin.mark, p.to.mark)});
      pending_.clear();
      pendingSpans_.clear();
      marking->clearMarks();
      origin = since_ = now(); // the marks before are gone
    }
    TimerTotals t = totals_;
    totals_ = TimerTotals();
    return t;
  }

private:
  /// Where a time goes: a category's index, or the kernels'.
  static constexpr int kKernel = -1;
  struct Pending {
    int target;
    Moment from, to;
  };
  struct PendingSpan {
    std::string name;
    Category category;
    Moment from, to;
  };
  void add(int target, double seconds) {
    if (target == kKernel)
      totals_.kernel += seconds;
    else
      totals_.seconds[target] += seconds;
  }
  void charge(int target, Moment from, Moment to) {
    if (marking)
      pending_.push_back({target, from, to});
    else
      add(target, to.host - from.host);
  }

  TimerTotals totals_;
  Category current_ = Category::Other;
  Moment since_ = now();
  std::vector<Pending> pending_;
  std::vector<PendingSpan> pendingSpans_;
};

/// Charges a scope to one category, then returns to the previous one; when
/// the step is traced, records it as a span named `name` + `what`.
class Charge {
public:
  Charge(Timers &timers, Category c, const std::string *name = nullptr,
         const char *what = "")
      : timers_(timers), category_(c), name_(name), what_(what) {
    previous_ = timers_.switchTo(c);
    if (timers_.tracing && name_)
      start_ = timers_.now();
  }
  ~Charge() {
    timers_.switchTo(previous_);
    if (timers_.tracing && name_)
      timers_.addSpan(*name_ + what_, category_, start_, timers_.now());
  }

private:
  Timers &timers_;
  Category category_, previous_;
  const std::string *name_;
  const char *what_;
  Moment start_;
};

/// Times one kernel call.
class KernelTimer {
public:
  explicit KernelTimer(Timers &timers)
      : timers_(timers), start_(timers.now()) {}
  ~KernelTimer() { timers_.addKernel(start_, timers_.now()); }

private:
  Timers &timers_;
  Moment start_;
};

} // namespace hdrt::exec

#endif // HDRT_EXEC_TIMERS_H
