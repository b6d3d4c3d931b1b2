//===- Dnnl.h - what the CPU kernels share of oneDNN ------------*- C++ -*-===//
//
// The engine and stream, descriptors of the caller's buffers (weights in
// plain oihw / oi, activation tiles in nchw or in the blocked layout the
// executor keeps them in between layers), scratch memory kept across calls,
// and primitives made once per shape. Convolution and pooling run in the
// blocked layouts oneDNN's fast kernels want (nChw16c, ...): on plain
// layouts it falls back to gemm and reference kernels up to 100x slower (a
// 1x1 convolution's backward-weights at 0.5 GFLOP/s), so an argument in
// another layout is reordered in or out, which costs a copy. Written
// against oneDNN 2.x (its v3 API differs): a port changes this header, its
// .cpp and the kinds' *Cpu.cpp files that build primitives.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_CPU_DNNL_H
#define HDRT_CPU_DNNL_H

#include "hdrt/common/Geometry.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <initializer_list>
#include <map>
#include <unordered_map>
#include <vector>

namespace hdrt::cpu {

using dnnl::memory;
using tag = memory::format_tag;

dnnl::engine &engine();
dnnl::stream &stream();

/// The channel block of oneDNN's fastest image layout on this CPU: 16 with
/// AVX-512 (nChw16c), else 8 (nChw8c).
int64_t channelBlock();

memory::desc desc(const memory::dims &dims, tag layout);
/// A oneDNN view of a caller's buffer.
memory view(const memory::desc &d, const float *data);

/// Buffers kept across calls for what a call needs besides the caller's:
/// reordered copies, workspaces and the primitives' scratchpads. Allocated
/// per call, each was a fresh mapping whose pages the kernel zeroed on
/// first touch: a quarter of a ResNet-50 step. A call uses each slot once.
enum Slot { kIn0, kIn1, kOut, kWorkspace, kExtra, kScratchpad, kSlots };
memory scratch(Slot slot, const memory::desc &d);

/// Every primitive's attributes: the scratchpad is ours (`scratch`).
const dnnl::primitive_attr &attr();

/// Runs primitive `p` of descriptor `pd` to completion.
void run(const dnnl::primitive &p, const dnnl::primitive_desc_base &pd,
         std::unordered_map<int, memory> args);

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
Key windowKey(const Window2d &w, std::initializer_list<int64_t> more);

/// An input argument in the layout `want` the primitive chose: the caller's
/// buffer (in layout `stored`) when it already has it, else a reordered
/// copy in `slot`.
memory input(const memory::desc &want, const memory::desc &stored,
             const float *data, Slot slot);

/// An output argument in the layout `want`; `finish` copies it back into
/// the caller's buffer after the primitive ran.
struct Output {
  memory user, arg;

  Output(const memory::desc &want, const memory::desc &stored, float *data);
  void finish();
};

/// The layout of an activation tile with channel block `block`.
tag imagesLayout(int64_t block);

/// The blocked layout of oneDNN's vectorized kernels on this CPU.
tag blockedImages();

} // namespace hdrt::cpu

#endif // HDRT_CPU_DNNL_H
