//===- hdrt.h - the C ABI generated programs call ---------------*- C++ -*-===//
//
// Declared from the table in Abi.def, which the compiler reads too.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_HDRT_H
#define HDRT_HDRT_H

#include <stdint.h>

#define HDRT_C_VOID void
#define HDRT_C_I32 int32_t
#define HDRT_C_I64 int64_t
#define HDRT_C_F64 double
#define HDRT_C_PTR void *

// Maps each type token of a parameter list to its C type.
#define HDRT_P1(a) HDRT_C_##a
#define HDRT_P2(a, ...) HDRT_C_##a, HDRT_P1(__VA_ARGS__)
#define HDRT_P3(a, ...) HDRT_C_##a, HDRT_P2(__VA_ARGS__)
#define HDRT_P4(a, ...) HDRT_C_##a, HDRT_P3(__VA_ARGS__)
#define HDRT_P5(a, ...) HDRT_C_##a, HDRT_P4(__VA_ARGS__)
#define HDRT_P6(a, ...) HDRT_C_##a, HDRT_P5(__VA_ARGS__)
#define HDRT_P7(a, ...) HDRT_C_##a, HDRT_P6(__VA_ARGS__)
#define HDRT_P8(a, ...) HDRT_C_##a, HDRT_P7(__VA_ARGS__)
#define HDRT_P9(a, ...) HDRT_C_##a, HDRT_P8(__VA_ARGS__)
#define HDRT_P10(a, ...) HDRT_C_##a, HDRT_P9(__VA_ARGS__)
#define HDRT_P11(a, ...) HDRT_C_##a, HDRT_P10(__VA_ARGS__)
#define HDRT_PICK(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, N, ...) N
#define HDRT_PARAMS(...)                                                       \
  HDRT_PICK(__VA_ARGS__, HDRT_P11, HDRT_P10, HDRT_P9, HDRT_P8, HDRT_P7,        \
            HDRT_P6, HDRT_P5, HDRT_P4, HDRT_P3, HDRT_P2, HDRT_P1,           \
            unused)(__VA_ARGS__)

#ifdef __cplusplus
extern "C" {
#endif

#define HDRT_FUNCTION(Name, ReturnType, ...)                                   \
  HDRT_C_##ReturnType Name(HDRT_PARAMS(__VA_ARGS__));
#include "hdrt/Abi.def"

#ifdef __cplusplus
}
#endif

enum {
  HDRT_IMAGES = -1,
  HDRT_LABELS = -2,
};

#endif // HDRT_HDRT_H
