//===- LinearCpu.cpp - fully-connected layers on oneDNN -------------------===//
//
// Inner-product primitives on the caller's plain nc / oi buffers, each made
// once per shape.
//
//===----------------------------------------------------------------------===//

#include "LinearKernels.h"

#include "cpu/Dnnl.h"

namespace hdrt {

namespace {

using namespace cpu;
using dnnl::prop_kind;

struct LinearDescs {
  memory::desc src, weights, bias, dst;

  LinearDescs(int64_t n, int64_t f, int64_t k)
      : src(desc({n, f}, tag::nc)), weights(desc({k, f}, tag::oi)),
        bias(desc({k}, tag::x)), dst(desc({n, k}, tag::nc)) {}

  dnnl::inner_product_forward::primitive_desc forward(bool withBias) const {
    auto d = withBias
                 ? dnnl::inner_product_forward::desc(
                       prop_kind::forward_training, src, weights, bias, dst)
                 : dnnl::inner_product_forward::desc(
                       prop_kind::forward_training, src, weights, dst);
    return dnnl::inner_product_forward::primitive_desc(d, attr(), engine());
  }
};

class CpuLinear final : public LinearKernels {
public:
  void forward(int64_t n, int64_t features, int64_t outFeatures,
               const float *in, const float *weight, const float *bias,
               float *out) override {
    LinearDescs d(n, features, outFeatures);
    const auto &m = made<dnnl::inner_product_forward>(
        {n, features, outFeatures, bias != nullptr},
        [&] { return d.forward(bias != nullptr); });
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, view(d.src, in)},
        {DNNL_ARG_WEIGHTS, view(d.weights, weight)},
        {DNNL_ARG_DST, view(d.dst, out)}};
    if (bias)
      args.insert({DNNL_ARG_BIAS, view(d.bias, bias)});
    run(m.primitive, m.pd, args);
  }

  void backwardData(int64_t n, int64_t features, int64_t outFeatures,
                    const float *dOut, const float *weight,
                    float *dIn) override {
    LinearDescs d(n, features, outFeatures);
    const auto &m = made<dnnl::inner_product_backward_data>(
        {n, features, outFeatures}, [&] {
          return dnnl::inner_product_backward_data::primitive_desc(
              dnnl::inner_product_backward_data::desc(d.src, d.weights, d.dst),
              attr(), engine(), d.forward(false));
        });
    run(m.primitive, m.pd,
        {{DNNL_ARG_DIFF_DST, view(d.dst, dOut)},
         {DNNL_ARG_WEIGHTS, view(d.weights, weight)},
         {DNNL_ARG_DIFF_SRC, view(d.src, dIn)}});
  }

  void backwardWeights(int64_t n, int64_t features, int64_t outFeatures,
                       const float *in, const float *dOut, float *dWeight,
                       float *dBias) override {
    LinearDescs d(n, features, outFeatures);
    bool withBias = dBias != nullptr;
    const auto &m = made<dnnl::inner_product_backward_weights>(
        {n, features, outFeatures, withBias}, [&] {
          auto desc = withBias ? dnnl::inner_product_backward_weights::desc(
                                     d.src, d.weights, d.bias, d.dst)
                               : dnnl::inner_product_backward_weights::desc(
                                     d.src, d.weights, d.dst);
          return dnnl::inner_product_backward_weights::primitive_desc(
              desc, attr(), engine(), d.forward(withBias));
        });
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, view(d.src, in)},
        {DNNL_ARG_DIFF_DST, view(d.dst, dOut)},
        {DNNL_ARG_DIFF_WEIGHTS, view(d.weights, dWeight)}};
    if (dBias)
      args.insert({DNNL_ARG_DIFF_BIAS, view(d.bias, dBias)});
    run(m.primitive, m.pd, args);
  }
};

} // namespace

HDRT_REGISTER_KERNELS(LinearKernels, "cpu", CpuLinear);

} // namespace hdrt
