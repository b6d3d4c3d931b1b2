//===- SearchProgress.h - a progress line for long searches ----*- C++ -*-===//
//
// On hundreds of devices the search can take tens of seconds. Once it has
// run for a few seconds, this prints where it is (the grouped search's
// round, the table entries filled) and, from the fill rate, about how long
// the current fill has left; at most one line every two seconds. Table
// fills report from every core, so it is thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef HD_STRATEGY_SEARCHPROGRESS_H
#define HD_STRATEGY_SEARCHPROGRESS_H

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdint>
#include <mutex>

namespace hd {

class SearchProgress {
public:
  /// Prints to `os` after `quietSeconds`; a null stream prints nothing.
  SearchProgress(llvm::raw_ostream *os, double quietSeconds = 3);

  /// The grouped search starts a round with this many configurations
  /// searched exactly out of all there are.
  void round(int round, int64_t exactConfigs, int64_t allConfigs);
  /// A table fill of `total` entries begins (done = 0) or has `done`.
  void entries(int64_t done, int64_t total);

private:
  using Clock = std::chrono::steady_clock;
  void print(Clock::time_point now);

  llvm::raw_ostream *os;
  double quietSeconds;
  std::mutex mutex;
  Clock::time_point start, lastLine, fillStart;
  int currentRound = 0;
  int64_t exact = 0, all = 0, done = 0, total = 0;
};

} // namespace hd

#endif // HD_STRATEGY_SEARCHPROGRESS_H
