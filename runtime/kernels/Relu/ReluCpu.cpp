//===- ReluCpu.cpp - the ReLU on the host ---------------------------------===//
//
// The forward is a loop of our own (oneDNN's would drop a NaN); the
// backward is oneDNN's eltwise primitive, made once per size.
//
//===----------------------------------------------------------------------===//

#include "ReluKernels.h"

#include "cpu/Dnnl.h"
#include "hdrt/common/Parallel.h"

namespace hdrt {

namespace {

using namespace cpu;
using dnnl::algorithm;
using dnnl::prop_kind;

dnnl::eltwise_forward::primitive_desc reluForwardPd(const memory::desc &d) {
  return dnnl::eltwise_forward::primitive_desc(
      dnnl::eltwise_forward::desc(prop_kind::forward_training,
                                  algorithm::eltwise_relu, d, 0.f, 0.f),
      attr(), engine());
}

class CpuRelu final : public ReluKernels {
public:
  void forward(int64_t count, const float *in, float *out) override {
    parallelChunks(count, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        out[i] = relu(in[i]);
    });
  }

  void backward(int64_t count, const float *x, const float *dOut,
                float *dIn) override {
    memory::desc d = desc({count}, tag::x);
    const auto &m = made<dnnl::eltwise_backward>({count}, [&] {
      return dnnl::eltwise_backward::primitive_desc(
          dnnl::eltwise_backward::desc(algorithm::eltwise_relu, d, d, 0.f, 0.f),
          attr(), engine(), reluForwardPd(d));
    });
    run(m.primitive, m.pd,
        {{DNNL_ARG_SRC, view(d, x)},
         {DNNL_ARG_DIFF_DST, view(d, dOut)},
         {DNNL_ARG_DIFF_SRC, view(d, dIn)}});
  }
};

} // namespace

HDRT_REGISTER_KERNELS(ReluKernels, "cpu", CpuRelu);

} // namespace hdrt
