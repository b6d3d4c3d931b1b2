//===- AddCpu.cpp - the sum of two tiles on the host ----------------------===//

#include "AddKernels.h"

#include "hdrt/common/Parallel.h"
#include "kernels/Relu/ReluKernels.h"

namespace hdrt {

namespace {

class CpuAdd final : public AddKernels {
public:
  void forward(int64_t count, const float *a, const float *b, float *out,
               bool applyRelu) override {
    if (applyRelu)
      return parallelChunks(count, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i)
          out[i] = relu(a[i] + b[i]);
      });
    parallelChunks(count, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        out[i] = a[i] + b[i];
    });
  }
};

} // namespace

HDRT_REGISTER_KERNELS(AddKernels, "cpu", CpuAdd);

} // namespace hdrt
