//===- Kernels.cpp - CPU layer kernels on one tile (oneDNN 2.x) -----------===//
//
// Every oneDNN call of the runtime is in this file: its v3 API differs, and
// keeping it here keeps a port to one place. Buffers are the caller's:
// weights in plain oihw / oi, activation tiles in nchw or, where the
// caller keeps them so between layers (TileLayouts), in the blocked layout
// of channelBlock(). Convolution and pooling run in the blocked layouts
// oneDNN's fast kernels want (nChw16c, ...): on plain layouts it falls back
// to gemm and reference kernels up to 100x slower (a 1x1 convolution's
// backward-weights at 0.5 GFLOP/s), so an argument in another layout is
// reordered in or out, which costs a copy. Each primitive is made once per
// shape and kept (`made`).
//
//===----------------------------------------------------------------------===//

#include "hdrt/cpu/Kernels.h"
#include "hdrt/common/Parallel.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdlib>
#include <initializer_list>
#include <map>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace hdrt::cpu {

namespace {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::prop_kind;
using tag = memory::format_tag;

dnnl::engine &engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

dnnl::stream &stream() {
  static dnnl::stream s(engine());
  return s;
}

memory::desc desc(const memory::dims &dims, tag layout) {
  return memory::desc(dims, memory::data_type::f32, layout);
}

/// A oneDNN view of a caller's buffer.
memory view(const memory::desc &d, const float *data) {
  return memory(d, engine(), const_cast<float *>(data));
}

/// Buffers kept across calls for what a call needs besides the caller's:
/// reordered copies, workspaces and the primitives' scratchpads. Allocated
/// per call, each was a fresh mapping whose pages the kernel zeroed on
/// first touch: a quarter of a ResNet-50 step. A call uses each slot once.
enum Slot { kIn0, kIn1, kOut, kWorkspace, kExtra, kScratchpad, kSlots };

memory scratch(Slot slot, const memory::desc &d) {
  struct Buffers {
    void *data[kSlots] = {};
    size_t bytes[kSlots] = {};
    ~Buffers() {
      for (void *p : data)
        std::free(p);
    }
  };
  thread_local Buffers buffers;
  size_t want = d.get_size();
  if (want > buffers.bytes[slot]) {
    std::free(buffers.data[slot]);
    size_t bytes = (want + 63) / 64 * 64;
    buffers.data[slot] = std::aligned_alloc(64, bytes);
    buffers.bytes[slot] = buffers.data[slot] ? bytes : 0;
    if (!buffers.data[slot])
      throw std::bad_alloc();
  }
  return memory(d, engine(), buffers.data[slot]);
}

/// Every primitive's attributes: the scratchpad is ours (`scratch`).
const dnnl::primitive_attr &attr() {
  static const dnnl::primitive_attr a = [] {
    dnnl::primitive_attr a;
    a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return a;
  }();
  return a;
}

/// Runs primitive `p` of descriptor `pd` to completion.
void run(const dnnl::primitive &p, const dnnl::primitive_desc_base &pd,
         std::unordered_map<int, memory> args) {
  args.insert({DNNL_ARG_SCRATCHPAD, scratch(kScratchpad, pd.scratchpad_desc())});
  p.execute(stream(), args);
  stream().wait();
}

/// What shapes a call: the pass's every size, stride, pad and flag.
using Key = std::vector<int64_t>;

/// A primitive with its descriptor.
template <typename Primitive> struct Made {
  typename Primitive::primitive_desc pd;
  Primitive primitive;
};

/// The primitive for `key`, made by `makePd` on the first call with that
/// key and kept: a layer's tile has the same shape every step, and making a
/// descriptor (oneDNN tries its implementations in turn) costs more than a
/// small layer's kernel.
template <typename Primitive, typename MakePd>
const Made<Primitive> &made(const Key &key, MakePd makePd) {
  thread_local std::map<Key, Made<Primitive>> cache;
  auto it = cache.find(key);
  if (it == cache.end()) {
    typename Primitive::primitive_desc pd = makePd();
    it = cache.emplace(key, Made<Primitive>{pd, Primitive(pd)}).first;
  }
  return it->second;
}

/// Every field of a kernel window, then `more`.
Key windowKey(const Window2d &w, std::initializer_list<int64_t> more) {
  Key key{w.n,        w.c,         w.h,         w.w,       w.kh,
          w.kw,       w.strideH,   w.strideW,   w.padTop,  w.padLeft,
          w.padBottom, w.padRight, w.dilationH, w.dilationW};
  key.insert(key.end(), more);
  return key;
}

Key convKey(const Conv2dShape &s, bool bias) {
  return windowKey(s.window, {s.outChannels, s.groups, bias});
}

Key poolKey(const Pool2dShape &s) {
  return windowKey(s.window, {s.max, s.countIncludePad});
}

/// An input argument in the layout `want` the primitive chose: the caller's
/// buffer (in layout `stored`) when it already has it, else a reordered
/// copy in `slot`.
memory input(const memory::desc &want, const memory::desc &stored,
             const float *data, Slot slot) {
  memory user = view(stored, data);
  if (want == stored)
    return user;
  memory m = scratch(slot, want);
  dnnl::reorder(user, m).execute(stream(), user, m);
  return m;
}

/// An output argument in the layout `want`; `finish` copies it back into
/// the caller's buffer after the primitive ran.
struct Output {
  memory user, arg;

  Output(const memory::desc &want, const memory::desc &stored, float *data)
      : user(view(stored, data)),
        arg(want == stored ? user : scratch(kOut, want)) {}
  void finish() {
    if (arg.get_data_handle() != user.get_data_handle())
      dnnl::reorder(arg, user).execute(stream(), arg, user);
    stream().wait();
  }
};

/// The layout of an activation tile with channel block `block`.
tag imagesLayout(int64_t block) {
  switch (block) {
  case 1:
    return tag::nchw;
  case 8:
    return tag::nChw8c;
  case 16:
    return tag::nChw16c;
  }
  throw std::invalid_argument("no nChw" + std::to_string(block) +
                              "c layout");
}

/// The blocked layout of oneDNN's vectorized kernels on this CPU.
tag blockedImages() { return imagesLayout(channelBlock()); }

/// The descriptors every convolution pass shares: the caller's layouts,
/// and `any` for the primitive to choose.
struct ConvDescs {
  memory::desc src, weights, bias, dst;
  memory::desc anySrc, anyWeights, anyDst;
  memory::dims strides, dilation, padL, padR;

  explicit ConvDescs(const Conv2dShape &s) {
    const Window2d &w = s.window;
    int64_t k = s.outChannels, g = s.groups;
    memory::dims srcDims{w.n, w.c, w.h, w.w}, dstDims{w.n, k, w.outH(), w.outW()};
    memory::dims weightDims =
        g == 1 ? memory::dims{k, w.c, w.kh, w.kw}
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
    auto d = withBias
                 ? dnnl::convolution_forward::desc(
                       prop_kind::forward_training,
                       algorithm::convolution_direct, anySrc, anyWeights,
                       bias, anyDst, strides, dilation, padL, padR)
                 : dnnl::convolution_forward::desc(
                       prop_kind::forward_training,
                       algorithm::convolution_direct, anySrc, anyWeights,
                       anyDst, strides, dilation, padL, padR);
    return dnnl::convolution_forward::primitive_desc(d, attr(), engine());
  }
};

struct PoolDescs {
  memory::desc src, dst;             // the caller's
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
    alg = s.max ? algorithm::pooling_max
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

struct LinearDescs {
  memory::desc src, weights, bias, dst;

  LinearDescs(int64_t n, int64_t f, int64_t k)
      : src(desc({n, f}, tag::nc)), weights(desc({k, f}, tag::oi)),
        bias(desc({k}, tag::x)), dst(desc({n, k}, tag::nc)) {}

  dnnl::inner_product_forward::primitive_desc forward(bool withBias) const {
    auto d = withBias ? dnnl::inner_product_forward::desc(
                            prop_kind::forward_training, src, weights, bias,
                            dst)
                      : dnnl::inner_product_forward::desc(
                            prop_kind::forward_training, src, weights, dst);
    return dnnl::inner_product_forward::primitive_desc(d, attr(), engine());
  }
};

dnnl::eltwise_forward::primitive_desc reluForwardPd(const memory::desc &d) {
  return dnnl::eltwise_forward::primitive_desc(
      dnnl::eltwise_forward::desc(prop_kind::forward_training,
                                  algorithm::eltwise_relu, d, 0.f, 0.f),
      attr(), engine());
}

} // namespace

int64_t channelBlock() {
  return dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core ? 16 : 8;
}

void conv2dForward(const Conv2dShape &s, const float *in, const float *weight,
                   const float *bias, float *out) {
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

void conv2dBackwardData(const Conv2dShape &s, const float *dOut,
                        const float *weight, float *dIn) {
  ConvDescs d(s);
  const auto &m = made<dnnl::convolution_backward_data>(convKey(s, false), [&] {
    return dnnl::convolution_backward_data::primitive_desc(
        dnnl::convolution_backward_data::desc(
            algorithm::convolution_direct, d.anySrc, d.anyWeights, d.anyDst,
            d.strides, d.dilation, d.padL, d.padR),
        attr(), engine(), d.forward(false));
  });
  Output diffSrc(m.pd.diff_src_desc(), d.src, dIn);
  run(m.primitive, m.pd,
      {{DNNL_ARG_DIFF_DST, input(m.pd.diff_dst_desc(), d.dst, dOut, kIn0)},
       {DNNL_ARG_WEIGHTS, input(m.pd.weights_desc(), d.weights, weight, kIn1)},
       {DNNL_ARG_DIFF_SRC, diffSrc.arg}});
  diffSrc.finish();
}

void conv2dBackwardWeights(const Conv2dShape &s, const float *in,
                           const float *dOut, float *dWeight, float *dBias) {
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

namespace {

const Made<dnnl::pooling_forward> &poolForward(const Pool2dShape &s,
                                               const PoolDescs &d) {
  return made<dnnl::pooling_forward>(poolKey(s), [&] { return d.forward(); });
}

} // namespace

int64_t pool2dWorkspaceBytes(const Pool2dShape &s) {
  if (!s.max)
    return 0;
  PoolDescs d(s);
  return int64_t(poolForward(s, d).pd.workspace_desc().get_size());
}

void pool2dForward(const Pool2dShape &s, const float *in, float *out,
                   void *workspace) {
  PoolDescs d(s);
  const auto &m = poolForward(s, d);
  Output dst(m.pd.dst_desc(), d.dst, out);
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, input(m.pd.src_desc(), d.src, in, kIn0)},
      {DNNL_ARG_DST, dst.arg}};
  // Training-mode max pooling wants a workspace even when unused later.
  if (s.max)
    args.insert({DNNL_ARG_WORKSPACE,
                 workspace ? memory(m.pd.workspace_desc(), engine(), workspace)
                           : scratch(kWorkspace, m.pd.workspace_desc())});
  run(m.primitive, m.pd, args);
  dst.finish();
}

void pool2dBackward(const Pool2dShape &s, const float *in, const float *dOut,
                    float *dIn, const void *kept) {
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
    args.insert({DNNL_ARG_WORKSPACE,
                 memory(fwd.pd.workspace_desc(), engine(),
                        const_cast<void *>(kept))}); // read only
  } else if (s.max) {
    // Without the forward's workspace: run the forward again into scratch.
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

void linearForward(int64_t n, int64_t features, int64_t outFeatures,
                   const float *in, const float *weight, const float *bias,
                   float *out) {
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

void linearBackwardData(int64_t n, int64_t features, int64_t outFeatures,
                        const float *dOut, const float *weight, float *dIn) {
  LinearDescs d(n, features, outFeatures);
  const auto &m =
      made<dnnl::inner_product_backward_data>({n, features, outFeatures}, [&] {
        return dnnl::inner_product_backward_data::primitive_desc(
            dnnl::inner_product_backward_data::desc(d.src, d.weights, d.dst),
            attr(), engine(), d.forward(false));
      });
  run(m.primitive, m.pd,
      {{DNNL_ARG_DIFF_DST, view(d.dst, dOut)},
       {DNNL_ARG_WEIGHTS, view(d.weights, weight)},
       {DNNL_ARG_DIFF_SRC, view(d.src, dIn)}});
}

void linearBackwardWeights(int64_t n, int64_t features, int64_t outFeatures,
                           const float *in, const float *dOut, float *dWeight,
                           float *dBias) {
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

void reluForward(int64_t count, const float *in, float *out) {
  // Not oneDNN's: its JIT kernel computes max(x, 0), which turns a NaN
  // into 0, so a corrupt value would vanish here instead of reaching the
  // loss check. NaN propagates, as in PyTorch. Memory-bound either way.
  parallelChunks(count, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out[i] = in[i] < 0.f ? 0.f : in[i];
  });
}

void reluBackward(int64_t count, const float *in, const float *dOut,
                  float *dIn) {
  memory::desc d = desc({count}, tag::x);
  const auto &m = made<dnnl::eltwise_backward>({count}, [&] {
    return dnnl::eltwise_backward::primitive_desc(
        dnnl::eltwise_backward::desc(algorithm::eltwise_relu, d, d, 0.f, 0.f),
        attr(), engine(), reluForwardPd(d));
  });
  run(m.primitive, m.pd,
      {{DNNL_ARG_SRC, view(d, in)},
       {DNNL_ARG_DIFF_DST, view(d, dOut)},
       {DNNL_ARG_DIFF_SRC, view(d, dIn)}});
}

} // namespace hdrt::cpu
