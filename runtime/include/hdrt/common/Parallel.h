//===- Parallel.h - the host loops over the rank's kernel threads -*- C++ -*-===//
//
// The loop kernels (batch norm, residual adds, ReLU, copies, the optimizer)
// are memory-bound; one thread leaves the rank's other cores and half its
// memory bandwidth idle while oneDNN uses them all. These run a loop over
// the same OpenMP threads oneDNN uses (exec/Threads.cpp sets their count).
//
// Every index is computed by exactly one thread, in the order the serial
// loop would: a reduction is split by its output (one channel per
// iteration), never by its terms, so results do not depend on the thread
// count and parallel runs stay bitwise equal to one thread.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_COMMON_PARALLEL_H
#define HDRT_COMMON_PARALLEL_H

#include <cstdint>

namespace hdrt {

/// Below this many elements of work a loop stays on the calling thread:
/// waking the team costs more than it saves.
constexpr int64_t kParallelMinWork = int64_t(1) << 15;

/// Calls body(i) for i in [0, n), split statically over the threads when
/// the loop touches at least kParallelMinWork elements (`work` in all).
template <typename Body>
void parallelFor(int64_t n, int64_t work, Body body) {
#pragma omp parallel for schedule(static) if (work >= kParallelMinWork && n > 1)
  for (int64_t i = 0; i < n; ++i)
    body(i);
}

/// Calls body(begin, end) on contiguous chunks that cover [0, count), one
/// per thread: for elementwise loops the compiler vectorizes.
template <typename Body> void parallelChunks(int64_t count, Body body) {
  constexpr int64_t kChunk = int64_t(1) << 14;
  int64_t chunks = (count + kChunk - 1) / kChunk;
  parallelFor(chunks, count, [&](int64_t c) {
    int64_t begin = c * kChunk;
    body(begin, begin + kChunk < count ? begin + kChunk : count);
  });
}

} // namespace hdrt

#endif // HDRT_COMMON_PARALLEL_H
