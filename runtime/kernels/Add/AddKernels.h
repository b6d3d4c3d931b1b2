//===- AddKernels.h - the sum of two activations ----------------*- C++ -*-===//
//
// The backward needs no kernel: both operands get the output's gradient,
// which the executor copies.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_KERNELS_ADD_ADDKERNELS_H
#define HDRT_KERNELS_ADD_ADDKERNELS_H

#include "hdrt/Kernels.h"

#include <cstdint>

namespace hdrt {

class AddKernels : public KernelSet {
public:
  static constexpr const char *kName = "Add";

  /// out = a + b; with `relu`, relu(a + b) (ReluKernels.h): the sum and
  /// the ReLU that is its only reader in one pass.
  virtual void forward(int64_t count, const float *a, const float *b,
                       float *out, bool relu) = 0;
};

} // namespace hdrt

#endif // HDRT_KERNELS_ADD_ADDKERNELS_H
