//===- VectorClones.h - kernels built for the widest vectors ---*- C++ -*-===//
//
// HD_VECTOR_CLONES before a function compiles it once for AVX-512, once for
// AVX2 and once for the baseline, and picks the clone at load time: the
// search's inner loops run in the widest vectors of the machine they run on,
// from one binary. Not under AddressSanitizer, whose runtime is not up when
// load-time resolvers run, and not on compilers without target_clones.
//
//===----------------------------------------------------------------------===//

#ifndef HD_SUPPORT_VECTORCLONES_H
#define HD_SUPPORT_VECTORCLONES_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&         \
    !defined(__SANITIZE_ADDRESS__)
#define HD_VECTOR_CLONES                                                       \
  __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define HD_VECTOR_CLONES
#endif

#endif // HD_SUPPORT_VECTORCLONES_H
