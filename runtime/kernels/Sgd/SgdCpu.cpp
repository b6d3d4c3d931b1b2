//===- SgdCpu.cpp - the optimizer's update on the host --------------------===//

#include "SgdKernels.h"

#include "hdrt/common/Parallel.h"

namespace hdrt {

namespace {

class CpuSgd final : public SgdKernels {
public:
  void update(int64_t count, float lr, float momentum, float weightDecay,
              bool nesterov, float *param, const float *grad,
              float *velocity) override {
    parallelChunks(count, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        sgdStep(lr, momentum, weightDecay, nesterov, param[i], grad[i],
                velocity[i]);
    });
  }
};

} // namespace

HDRT_REGISTER_KERNELS(SgdKernels, "cpu", CpuSgd);

} // namespace hdrt
