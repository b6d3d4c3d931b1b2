//===- Timers.h - where a rank's step time goes -----------------*- C++ -*-===//
//
// Every moment of a step is charged to one category: compute (layer calls
// and the optimizer), transfer (hd.transfer exchanges), sync (gradient
// all-reduce, and the all-reduces inside batch norm and the loss) or input
// (waiting for the step's images and labels). Kernel
// time is the part of compute spent inside the kernels themselves; the rest
// of compute is the runtime's own work (copies, bookkeeping).
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

class Timers {
public:
  /// A device whose work runs asynchronously is waited for at every
  /// boundary between charges, so that its time lands in the right one;
  /// null: time what the host spends issuing the work.
  Device *fenced = nullptr;
  /// Spans of the traced step (`--trace`), when tracing.
  bool tracing = false;
  double origin = 0;
  std::vector<Span> spans;

  /// Charges the time since the last switch to the current category.
  Category switchTo(Category next) {
    if (fenced)
      fenced->fence();
    double now = MPI_Wtime();
    totals_.seconds[static_cast<int>(current_)] += now - since_;
    since_ = now;
    Category previous = current_;
    current_ = next;
    return previous;
  }
  void addKernel(double seconds) { totals_.kernel += seconds; }
  void addGradientSyncExposed(double seconds) {
    totals_.gradientSyncExposed += seconds;
  }
  /// Returns the totals since the last take and starts again.
  TimerTotals take() {
    switchTo(current_);
    TimerTotals t = totals_;
    totals_ = TimerTotals();
    return t;
  }

private:
  TimerTotals totals_;
  Category current_ = Category::Other;
  double since_ = MPI_Wtime();
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
      start_ = MPI_Wtime();
  }
  ~Charge() {
    timers_.switchTo(previous_); // fences first
    if (timers_.tracing && name_)
      timers_.spans.push_back({*name_ + what_, category_,
                               start_ - timers_.origin,
                               MPI_Wtime() - timers_.origin});
  }

private:
  Timers &timers_;
  Category category_, previous_;
  const std::string *name_;
  const char *what_;
  double start_ = 0;
};

/// Times one kernel call.
class KernelTimer {
public:
  explicit KernelTimer(Timers &timers) : timers_(timers) {
    if (timers_.fenced)
      timers_.fenced->fence();
    start_ = MPI_Wtime();
  }
  ~KernelTimer() {
    if (timers_.fenced)
      timers_.fenced->fence();
    timers_.addKernel(MPI_Wtime() - start_);
  }

private:
  Timers &timers_;
  double start_;
};

} // namespace hdrt::exec

#endif // HDRT_EXEC_TIMERS_H
