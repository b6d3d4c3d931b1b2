//===- Conv2dCpu.cpp - convolutions on oneDNN -----------------------------===//
//
// Forward, backward-data and backward-weights primitives, each made once
// per shape. oneDNN picks the weights' and activations' layouts (`any`);
// the caller's buffers are reordered in and out where they differ.
//
//===----------------------------------------------------------------------===//

#include "Conv2dKernels.h"

#include "cpu/Dnnl.h"

namespace hdrt {

namespace {

using namespace cpu;
using dnnl::algorithm;
using dnnl::prop_kind;

Key convKey(const Conv2dShape &s, bool bias) {
  return windowKey(s.window, {s.outChannels, s.groups, bias});
}

/// The descriptors every convolution pass shares: the caller's layouts,
/// and `any` for the primitive to choose.
struct ConvDescs {
  memory::desc src, weights, bias, dst;
  memory::desc anySrc, anyWeights, anyDst;
  memory::dims strides, dilation, padL, padR;

  explicit ConvDescs(const Conv2dShape &s) {
    const Window2d &w = s.window;
    int64_t k = s.outChannels, g = s.groups;
    memory::dims srcDims{w.n, w.c, w.h, w.w},
        dstDims{w.n, k, w.outH(), w.outW()};
    memory::dims weightDims = g == 1
                                  ? memory::dims{k, w.c, w.kh, w.kw}
                                  : memory::dims{g, k / g, w.c / g, w.kh, w.kw};
    src = desc(srcDims, imagesLayout(s.layouts.in));
    weights = desc(weightDims, g == 1 ? tag::oihw : tag::goihw);
    bias = desc({k}, tag::x);
    dst = desc(dstDims, imagesLayout(s.layouts.out));
    anySrc = desc(srcDims, tag::any);
    anyWeights = desc(weightDims, tag::any);
    anyDst = desc(dstDims, tag::any);
    strides = {w.strideH, w.strideW};
    // oneDNN counts dilation from 0: a dense kernel has dilation 0.
    dilation = {w.dilationH - 1, w.dilationW - 1};
    padL = {w.padTop, w.padLeft};
    padR = {w.padBottom, w.padRight};
  }

  dnnl::convolution_forward::primitive_desc forward(bool withBias) const {
    auto d =
        withBias
            ? dnnl::convolution_forward::desc(prop_kind::forward_training,
                                              algorithm::convolution_direct,
                                              anySrc, anyWeights, bias, anyDst,
                                              strides, dilation, padL, padR)
            : dnnl::convolution_forward::desc(
                  prop_kind::forward_training, algorithm::convolution_direct,
                  anySrc, anyWeights, anyDst, strides, dilation, padL, padR);
    return dnnl::convolution_forward::primitive_desc(d, attr(), engine());
  }
};

class CpuConv2d final : public Conv2dKernels {
public:
  void forward(const Conv2dShape &s, const float *in, const float *weight,
               const float *bias, float *out) override {
    ConvDescs d(s);
    const auto &m = made<dnnl::convolution_forward>(
        convKey(s, bias), [&] { return d.forward(bias != nullptr); });
    Output dst(m.pd.dst_desc(), d.dst, out);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, input(m.pd.src_desc(), d.src, in, kIn0)},
        {DNNL_ARG_WEIGHTS, input(m.pd.weights_desc(), d.weights, weight, kIn1)},
        {DNNL_ARG_DST, dst.arg}};
    if (bias)
      args.insert({DNNL_ARG_BIAS, view(d.bias, bias)});
    run(m.primitive, m.pd, args);
    dst.finish();
  }

  void backwardData(const Conv2dShape &s, const float *dOut,
                    const float *weight, float *dIn) override {
    ConvDescs d(s);
    const auto &m =
        made<dnnl::convolution_backward_data>(convKey(s, false), [&] {
          return dnnl::convolution_backward_data::primitive_desc(
              dnnl::convolution_backward_data::desc(
                  algorithm::convolution_direct, d.anySrc, d.anyWeights,
                  d.anyDst, d.strides, d.dilation, d.padL, d.padR),
              attr(), engine(), d.forward(false));
        });
    Output diffSrc(m.pd.diff_src_desc(), d.src, dIn);
    run(m.primitive, m.pd,
        {{DNNL_ARG_DIFF_DST, input(m.pd.diff_dst_desc(), d.dst, dOut, kIn0)},
         {DNNL_ARG_WEIGHTS,
          input(m.pd.weights_desc(), d.weights, weight, kIn1)},
         {DNNL_ARG_DIFF_SRC, diffSrc.arg}});
    diffSrc.finish();
  }

  void backwardWeights(const Conv2dShape &s, const float *in, const float *dOut,
                       float *dWeight, float *dBias) override {
    ConvDescs d(s);
    bool withBias = dBias != nullptr;
    const auto &m =
        made<dnnl::convolution_backward_weights>(convKey(s, withBias), [&] {
          auto desc =
              withBias
                  ? dnnl::convolution_backward_weights::desc(
                        algorithm::convolution_direct, d.anySrc, d.anyWeights,
                        d.bias, d.anyDst, d.strides, d.dilation, d.padL, d.padR)
                  : dnnl::convolution_backward_weights::desc(
                        algorithm::convolution_direct, d.anySrc, d.anyWeights,
                        d.anyDst, d.strides, d.dilation, d.padL, d.padR);
          return dnnl::convolution_backward_weights::primitive_desc(
              desc, attr(), engine(), d.forward(withBias));
        });
    Output diffWeights(m.pd.diff_weights_desc(), d.weights, dWeight);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, input(m.pd.src_desc(), d.src, in, kIn0)},
        {DNNL_ARG_DIFF_DST, input(m.pd.diff_dst_desc(), d.dst, dOut, kIn1)},
        {DNNL_ARG_DIFF_WEIGHTS, diffWeights.arg}};
    if (dBias)
      args.insert({DNNL_ARG_DIFF_BIAS, view(d.bias, dBias)});
    run(m.primitive, m.pd, args);
    diffWeights.finish();
  }
};

} // namespace

HDRT_REGISTER_KERNELS(Conv2dKernels, "cpu", CpuConv2d);

} // namespace hdrt
