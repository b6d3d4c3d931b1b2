//===- Binary.h - elementwise binary functions, forward and backward -*- C++ -*-===//
//
// hd.binary's functions and their partial derivatives, for the CPU loop and
// the CUDA kernel alike, in PyTorch's order of operations (aten's
// div_backward: dB = -g * a / (b * b)), so that training matches it.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_COMMON_BINARY_H
#define HDRT_COMMON_BINARY_H

#include "hdrt/Random.h" // HDRT_HOST_DEVICE

#include <cstdint>

namespace hdrt {

/// The functions of hd.binary; the numbers cross the ABI (hd's
/// BinaryFunction enum has the same).
enum class BinaryFunction : int64_t { Add = 0, Sub = 1, Mul = 2, Div = 3 };

inline bool isBinaryFunction(int64_t f) { return f >= 0 && f <= 3; }

HDRT_HOST_DEVICE inline float applyBinary(BinaryFunction f, float a,
                                          float b) {
  switch (f) {
  case BinaryFunction::Add:
    return a + b;
  case BinaryFunction::Sub:
    return a - b;
  case BinaryFunction::Mul:
    return a * b;
  case BinaryFunction::Div:
    return a / b;
  }
  return 0;
}

/// d(a f b)/da times the output's gradient g.
HDRT_HOST_DEVICE inline float binaryGradLhs(BinaryFunction f, float b,
                                            float g) {
  switch (f) {
  case BinaryFunction::Add:
  case BinaryFunction::Sub:
    return g;
  case BinaryFunction::Mul:
    return g * b;
  case BinaryFunction::Div:
    return g / b;
  }
  return 0;
}

/// d(a f b)/db times g.
HDRT_HOST_DEVICE inline float binaryGradRhs(BinaryFunction f, float a, float b,
                                            float g) {
  switch (f) {
  case BinaryFunction::Add:
    return g;
  case BinaryFunction::Sub:
    return -g;
  case BinaryFunction::Mul:
    return g * a;
  case BinaryFunction::Div:
    return -g * a / (b * b);
  }
  return 0;
}

} // namespace hdrt

#endif // HDRT_COMMON_BINARY_H
