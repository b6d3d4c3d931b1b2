//===- Reporter.h - what a run tells its user -------------------*- C++ -*-===//
//
// The step lines, the end of each pass over the data, the evaluations, and
// at the end the --metrics JSON file and the --trace file. Rank 0 prints
// and writes; the files' figures are gathered from every rank.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_EXEC_REPORTER_H
#define HDRT_EXEC_REPORTER_H

#include "Network.h"
#include "Options.h"
#include "Timers.h"

#include <vector>

namespace hdrt::exec {

/// One evaluation over the whole --eval-data.
struct Evaluation {
  int64_t step = 0; // after this many training steps
  int64_t samples = 0;
  double loss = 0; // mean over the samples
  double top1 = 0, top5 = 0;
};

class Reporter {
public:
  Reporter(const Network &network, const Device &device, const Options &options,
           int rank)
      : network_(network), device_(device), options_(options), rank_(rank) {}

  /// Training runs steps [firstStep, lastStep) of a global batch of `batch`
  /// over `trainingSize` samples (0: synthetic data).
  void start(int64_t firstStep, int64_t lastStep, int64_t batch,
             int64_t trainingSize);
  /// Step `step` (from 0) ended: its loss, seconds and their split; prints
  /// its line and, where it ends a pass over the data, the pass's.
  void stepEnded(int64_t step, double loss, double seconds,
                 const TimerTotals &totals);
  /// The spans of the traced step.
  void traced(std::vector<Span> spans) { traced_ = std::move(spans); }
  /// Records and prints an evaluation.
  void evaluated(const Evaluation &e);

  /// Steps trained in this process.
  int64_t steps() const { return int64_t(losses_.size()); }
  const std::vector<Evaluation> &evaluations() const { return evaluations_; }

  /// Collective. `communicators`: how many this rank made.
  void writeMetrics(int64_t communicators) const;
  void writeTrace() const;

private:
  void reportEpoch(int64_t step);

  const Network &network_;
  const Device &device_;
  const Options &options_;
  int rank_;
  int64_t firstStep_ = 0, lastStep_ = 0, batch_ = 0, trainingSize_ = 0;
  std::vector<double> losses_, stepMs_;
  std::vector<TimerTotals> stepTotals_;
  std::vector<Span> traced_;
  std::vector<Evaluation> evaluations_;
};

} // namespace hdrt::exec

#endif // HDRT_EXEC_REPORTER_H
