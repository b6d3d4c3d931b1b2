//===- BinaryKernels.h - elementwise binary functions -----------*- C++ -*-===//
//
// hd.binary's functions and their partial derivatives, for the CPU loop and
// the CUDA kernel alike, in PyTorch's order of operations (aten's
// div_backward: dB = -g * a / (b * b)), so that training matches it.
// hd.channel_binary runs the same kernels with its operand broadcast.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_KERNELS_BINARY_BINARYKERNELS_H
#define HDRT_KERNELS_BINARY_BINARYKERNELS_H

#include "hdrt/Kernels.h"
#include "hdrt/Random.h" // HDRT_HOST_DEVICE

#include <cstdint>

namespace hdrt {

/// The functions of hd.binary and hd.channel_binary; the numbers cross the
/// ABI (the compiler checks them against hd's BinaryFunction at build
/// time).
enum class BinaryFunction : int64_t { Add = 0, Sub = 1, Mul = 2, Div = 3 };
constexpr int64_t kBinaryFunctions = 4;

inline bool isBinaryFunction(int64_t f) {
  return f >= 0 && f < kBinaryFunctions;
}

HDRT_HOST_DEVICE inline float applyBinary(BinaryFunction f, float a, float b) {
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

class BinaryKernels : public KernelSet {
public:
  static constexpr const char *kName = "Binary";

  /// out = a f b over `rows` x `cols` values; b holds one value per row
  /// when `broadcast`, else one per element.
  virtual void forward(BinaryFunction f, int64_t rows, int64_t cols,
                       bool broadcast, const float *a, const float *b,
                       float *out) = 0;
  /// dA and dB (row sums when broadcast); either may be null.
  virtual void backward(BinaryFunction f, int64_t rows, int64_t cols,
                        bool broadcast, const float *a, const float *b,
                        const float *dOut, float *dA, float *dB) = 0;
};

} // namespace hdrt

#endif // HDRT_KERNELS_BINARY_BINARYKERNELS_H
