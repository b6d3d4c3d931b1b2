//===- Pool2dCpu.cpp - pooling on oneDNN ----------------------------------===//
//
// Forward and backward primitives in the CPU's blocked layout, made once
// per shape. Max pooling's forward leaves where each window's maximum is in
// the caller's workspace, which its backward reads.
//
//===----------------------------------------------------------------------===//

#include "Pool2dKernels.h"

#include "cpu/Dnnl.h"

namespace hdrt {

namespace {

using namespace cpu;
using dnnl::algorithm;
using dnnl::prop_kind;

Key poolKey(const Pool2dShape &s) {
  return windowKey(s.window, {s.max, s.countIncludePad});
}

struct PoolDescs {
  memory::desc src, dst;               // the caller's
  memory::desc blockedSrc, blockedDst; // the primitive's
  memory::dims strides, kernel, padL, padR;
  algorithm alg;

  explicit PoolDescs(const Pool2dShape &s) {
    const Window2d &w = s.window;
    src = desc({w.n, w.c, w.h, w.w}, imagesLayout(s.layouts.in));
    dst = desc({w.n, w.c, w.outH(), w.outW()}, imagesLayout(s.layouts.out));
    blockedSrc = desc({w.n, w.c, w.h, w.w}, blockedImages());
    blockedDst = desc({w.n, w.c, w.outH(), w.outW()}, blockedImages());
    strides = {w.strideH, w.strideW};
    kernel = {w.kh, w.kw};
    padL = {w.padTop, w.padLeft};
    padR = {w.padBottom, w.padRight};
    alg = s.max               ? algorithm::pooling_max
          : s.countIncludePad ? algorithm::pooling_avg_include_padding
                              : algorithm::pooling_avg_exclude_padding;
  }

  dnnl::pooling_forward::primitive_desc forward() const {
    return dnnl::pooling_forward::primitive_desc(
        dnnl::pooling_forward::desc(prop_kind::forward_training, alg,
                                    blockedSrc, blockedDst, strides, kernel,
                                    padL, padR),
        attr(), engine());
  }
};

const Made<dnnl::pooling_forward> &poolForward(const Pool2dShape &s,
                                               const PoolDescs &d) {
  return made<dnnl::pooling_forward>(poolKey(s), [&] { return d.forward(); });
}

class CpuPool2d final : public Pool2dKernels {
public:
  int64_t workspaceBytes(const Pool2dShape &s) override {
    if (!s.max)
      return 0;
    PoolDescs d(s);
    return int64_t(poolForward(s, d).pd.workspace_desc().get_size());
  }

  void forward(const Pool2dShape &s, const float *in, float *out,
               void *workspace) override {
    PoolDescs d(s);
    const auto &m = poolForward(s, d);
    Output dst(m.pd.dst_desc(), d.dst, out);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, input(m.pd.src_desc(), d.src, in, kIn0)},
        {DNNL_ARG_DST, dst.arg}};
    // Training-mode max pooling wants a workspace even when unused later.
    if (s.max)
      args.insert({DNNL_ARG_WORKSPACE,
                   workspace
                       ? memory(m.pd.workspace_desc(), engine(), workspace)
                       : scratch(kWorkspace, m.pd.workspace_desc())});
    run(m.primitive, m.pd, args);
    dst.finish();
  }

  void backward(const Pool2dShape &s, const float *in, const float *dOut,
                float *dIn, const void *kept) override {
    PoolDescs d(s);
    const auto &fwd = poolForward(s, d);
    const auto &m = made<dnnl::pooling_backward>(poolKey(s), [&] {
      return dnnl::pooling_backward::primitive_desc(
          dnnl::pooling_backward::desc(d.alg, d.blockedSrc, d.blockedDst,
                                       d.strides, d.kernel, d.padL, d.padR),
          attr(), engine(), fwd.pd);
    });
    Output diffSrc(m.pd.diff_src_desc(), d.src, dIn);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_DIFF_DST, input(m.pd.diff_dst_desc(), d.dst, dOut, kIn0)},
        {DNNL_ARG_DIFF_SRC, diffSrc.arg}};
    if (s.max && kept) {
      args.insert(
          {DNNL_ARG_WORKSPACE, memory(fwd.pd.workspace_desc(), engine(),
                                      const_cast<void *>(kept))}); // read only
    } else if (s.max) {
      // Without the forward's workspace: run the forward again into
      // scratch.
      memory workspace = scratch(kWorkspace, fwd.pd.workspace_desc());
      run(fwd.primitive, fwd.pd,
          {{DNNL_ARG_SRC, input(fwd.pd.src_desc(), d.src, in, kIn1)},
           {DNNL_ARG_DST, scratch(kExtra, fwd.pd.dst_desc())},
           {DNNL_ARG_WORKSPACE, workspace}});
      args.insert({DNNL_ARG_WORKSPACE, workspace});
    }
    run(m.primitive, m.pd, args);
    diffSrc.finish();
  }
};

} // namespace

HDRT_REGISTER_KERNELS(Pool2dKernels, "cpu", CpuPool2d);

} // namespace hdrt
