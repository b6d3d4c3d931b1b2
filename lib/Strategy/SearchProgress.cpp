//===- SearchProgress.cpp - a progress line for long searches -------------===//

#include "hd/Strategy/SearchProgress.h"

#include "llvm/Support/Format.h"

namespace hd {

SearchProgress::SearchProgress(llvm::raw_ostream *os, double quietSeconds)
    : os(os), quietSeconds(quietSeconds), start(Clock::now()),
      lastLine(start) {}

void SearchProgress::round(int round, int64_t exactConfigs,
                           int64_t allConfigs) {
  std::lock_guard<std::mutex> lock(mutex);
  currentRound = round;
  exact = exactConfigs;
  all = allConfigs;
  print(Clock::now());
}

void SearchProgress::entries(int64_t doneNow, int64_t totalNow) {
  std::lock_guard<std::mutex> lock(mutex);
  Clock::time_point now = Clock::now();
  if (doneNow == 0)
    fillStart = now;
  done = doneNow;
  total = totalNow;
  print(now);
}

void SearchProgress::print(Clock::time_point now) {
  auto seconds = [](Clock::duration d) {
    return std::chrono::duration<double>(d).count();
  };
  if (!os || seconds(now - start) < quietSeconds ||
      seconds(now - lastLine) < 2)
    return;
  lastLine = now;
  *os << llvm::format("hd-opt: searching for %.0f s", seconds(now - start));
  if (currentRound > 0)
    *os << llvm::format(": round %d, %lld of %lld configurations exact",
                        currentRound, (long long)exact, (long long)all);
  if (total > 0 && done < total) {
    *os << llvm::format(", cost tables %lld of %lld entries",
                        (long long)done, (long long)total);
    double elapsed = seconds(now - fillStart);
    if (done > 0 && elapsed > 0.5)
      *os << llvm::format(", about %.0f s left",
                          elapsed * double(total - done) / double(done));
  }
  *os << "\n";
  os->flush();
}

} // namespace hd
