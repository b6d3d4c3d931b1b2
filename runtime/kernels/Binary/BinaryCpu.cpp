//===- BinaryCpu.cpp - hd.binary on the host ------------------------------===//
//
// One row per iteration: a broadcast operand's gradient sums its row in
// double, in order, whatever the thread count.
//
//===----------------------------------------------------------------------===//

#include "BinaryKernels.h"

#include "hdrt/common/Parallel.h"

namespace hdrt {

namespace {

class CpuBinary final : public BinaryKernels {
public:
  void forward(BinaryFunction f, int64_t rows, int64_t cols, bool broadcast,
               const float *a, const float *b, float *out) override {
    parallelFor(rows, rows * cols, [&](int64_t r) {
      for (int64_t i = 0; i < cols; ++i) {
        int64_t e = r * cols + i;
        out[e] = applyBinary(f, a[e], b[broadcast ? r : e]);
      }
    });
  }

  void backward(BinaryFunction f, int64_t rows, int64_t cols, bool broadcast,
                const float *a, const float *b, const float *dOut, float *dA,
                float *dB) override {
    parallelFor(rows, rows * cols, [&](int64_t r) {
      double rowSum = 0;
      for (int64_t i = 0; i < cols; ++i) {
        int64_t e = r * cols + i;
        float y = b[broadcast ? r : e];
        if (dA)
          dA[e] = binaryGradLhs(f, y, dOut[e]);
        if (!dB)
          continue;
        float g = binaryGradRhs(f, a[e], y, dOut[e]);
        if (broadcast)
          rowSum += g;
        else
          dB[e] = g;
      }
      if (dB && broadcast)
        dB[r] = float(rowSum);
    });
  }
};

} // namespace

HDRT_REGISTER_KERNELS(BinaryKernels, "cpu", CpuBinary);

} // namespace hdrt
