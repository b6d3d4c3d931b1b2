//===- Caches.h - touching host memory, for profiling -----------*- C++ -*-===//
//
// The profiler sets the caches as a training step leaves them before it
// times a layer: it flushes the layer's memory, then reads back what the
// layer's neighbour has just written.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_COMMON_CACHES_H
#define HDRT_COMMON_CACHES_H

#include <cstddef>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace hdrt {

/// Reads one byte of every cache line of [data, data + bytes).
inline char touchLines(const char *data, size_t bytes) {
  char sum = 0;
  for (size_t i = 0; i < bytes; i += 64)
    sum += data[i];
  return sum;
}

/// Writes `bytes` at `memory` back and drops them from every cache level.
inline void flushFromCaches(const void *memory, size_t bytes) {
#if defined(__x86_64__) || defined(__i386__)
  const char *p = static_cast<const char *>(memory);
  for (size_t i = 0; i < bytes; i += 64)
    _mm_clflush(p + i);
  _mm_mfence();
#else
  // No portable flush: read a buffer larger than the caches of the CPUs
  // without one.
  (void)memory;
  (void)bytes;
  static std::vector<char> other(size_t(256) << 20, 1);
  volatile char sink = touchLines(other.data(), other.size());
  (void)sink;
#endif
}

} // namespace hdrt

#endif // HDRT_COMMON_CACHES_H
