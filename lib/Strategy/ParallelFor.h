//===- ParallelFor.h - a loop over every core -------------------*- C++ -*-===//
//
// The cost tables fill, bound and key their tables on every core; each
// iteration is independent and writes its own slot, so a shared counter
// handing out indices is all the scheduling they need. Private to the
// Strategy library.
//
//===----------------------------------------------------------------------===//

#ifndef HD_LIB_STRATEGY_PARALLELFOR_H
#define HD_LIB_STRATEGY_PARALLELFOR_H

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>
#include <vector>

namespace hd {

/// Runs body(0..n-1) on every core.
inline void parallelFor(size_t n, const std::function<void(size_t)> &body) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < n;)
      body(i);
  };
  unsigned threads =
      std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), n));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(work);
  work();
  for (std::thread &t : pool)
    t.join();
}

} // namespace hd

#endif // HD_LIB_STRATEGY_PARALLELFOR_H
