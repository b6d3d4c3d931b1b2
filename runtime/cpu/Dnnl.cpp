//===- Dnnl.cpp - what the CPU kernels share of oneDNN --------------------===//

#include "Dnnl.h"

#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

namespace hdrt::cpu {

dnnl::engine &engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

dnnl::stream &stream() {
  static dnnl::stream s(engine());
  return s;
}

int64_t channelBlock() {
  return dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core ? 16 : 8;
}

memory::desc desc(const memory::dims &dims, tag layout) {
  return memory::desc(dims, memory::data_type::f32, layout);
}

memory view(const memory::desc &d, const float *data) {
  return memory(d, engine(), const_cast<float *>(data));
}

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

const dnnl::primitive_attr &attr() {
  static const dnnl::primitive_attr a = [] {
    dnnl::primitive_attr a;
    a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return a;
  }();
  return a;
}

void run(const dnnl::primitive &p, const dnnl::primitive_desc_base &pd,
         std::unordered_map<int, memory> args) {
  args.insert(
      {DNNL_ARG_SCRATCHPAD, scratch(kScratchpad, pd.scratchpad_desc())});
  p.execute(stream(), args);
  stream().wait();
}

Key windowKey(const Window2d &w, std::initializer_list<int64_t> more) {
  Key key{w.n,         w.c,        w.h,         w.w,        w.kh,
          w.kw,        w.strideH,  w.strideW,   w.padTop,   w.padLeft,
          w.padBottom, w.padRight, w.dilationH, w.dilationW};
  key.insert(key.end(), more);
  return key;
}

memory input(const memory::desc &want, const memory::desc &stored,
             const float *data, Slot slot) {
  memory user = view(stored, data);
  if (want == stored)
    return user;
  memory m = scratch(slot, want);
  dnnl::reorder(user, m).execute(stream(), user, m);
  return m;
}

Output::Output(const memory::desc &want, const memory::desc &stored,
               float *data)
    : user(view(stored, data)),
      arg(want == stored ? user : scratch(kOut, want)) {}

void Output::finish() {
  if (arg.get_data_handle() != user.get_data_handle())
    dnnl::reorder(arg, user).execute(stream(), arg, user);
  stream().wait();
}

tag imagesLayout(int64_t block) {
  switch (block) {
  case 1:
    return tag::nchw;
  case 8:
    return tag::nChw8c;
  case 16:
    return tag::nChw16c;
  }
  throw std::invalid_argument("no nChw" + std::to_string(block) + "c layout");
}

tag blockedImages() { return imagesLayout(channelBlock()); }

} // namespace hdrt::cpu
