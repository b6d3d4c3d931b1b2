//===- Binary.cpp - hd.binary on this rank's tile -------------------------===//
//
// Sum, difference, product or quotient of two activations of one shape, or
// of an N x C x H x W activation and an N x C x 1 x 1 one (a squeeze-and-
// excitation scale). A task that splits h or w reads its samples' and
// channels' values of the broadcast operand whole; its partial gradient of
// them is added to the other tasks' by the backward transfer.
//
//===----------------------------------------------------------------------===//

#include "../LayerImpl.h"

#include "kernels/Binary/BinaryKernels.h"

namespace hdrt::exec {

namespace {

BinaryFunction functionOf(const Layer &l) {
  return BinaryFunction(l.desc<BinaryDesc>().function);
}

bool isBroadcast(const Layer &l) {
  const Partition &rhs = l.inputs[1]->source;
  return l.out.rank == 4 &&
         (rhs.shape[2] != l.out.shape[2] || rhs.shape[3] != l.out.shape[3]);
}

/// The tile as rows x columns: a row per scale when broadcast.
struct Rows {
  int64_t rows, cols;
};
Rows rowsOf(const Layer &l) {
  if (!isBroadcast(l))
    return {1, l.tile.volume()};
  return {extent(l.tile, 0) * extent(l.tile, 1), spatial(l.tile)};
}

class BinaryImplementation final : public LayerImpl {
  void prepare(LayerContext &, Layer &l) const override {
    if (!isBinaryFunction(l.desc<BinaryDesc>().function))
      throw Error("layer '" + l.name + "': binary function " +
                  std::to_string(l.desc<BinaryDesc>().function) +
                  " is not one this runtime knows");
    const Partition &lhs = l.inputs[0]->source, &rhs = l.inputs[1]->source;
    bool same = lhs.rank == l.out.rank && rhs.rank == l.out.rank;
    for (int d = 0; same && d < l.out.rank; ++d)
      same = lhs.shape[d] == l.out.shape[d] &&
             (rhs.shape[d] == l.out.shape[d] || (d >= 2 && rhs.shape[d] == 1));
    if (!same)
      throw Error("layer '" + l.name +
                  "': its operands' shapes do not match "
                  "its output, or a broadcast other than N x C x 1 x 1");
  }

  Box inputBox(const Layer &l, const Edge &e, const Box &whole) const override {
    Box box = l.tile;
    if (&e == l.inputs[1] && isBroadcast(l) && box.volume() > 0)
      for (int d = 2; d < 4; ++d) {
        box.lo[d] = 0;
        box.hi[d] = 1;
      }
    return box;
  }

  void forward(LayerContext &ctx, Layer &l) const override {
    KernelTimer k(ctx.timers());
    Rows r = rowsOf(l);
    kernelsOf<BinaryKernels>(ctx.device())
        .forward(functionOf(l), r.rows, r.cols, isBroadcast(l), l.inputs[0]->in,
                 l.inputs[1]->in, l.value.data());
  }

  void backward(LayerContext &ctx, Layer &l) const override {
    Edge &a = *l.inputs[0], &b = *l.inputs[1];
    if (!a.dIn && !b.dIn)
      return;
    KernelTimer k(ctx.timers());
    Rows r = rowsOf(l);
    kernelsOf<BinaryKernels>(ctx.device())
        .backward(functionOf(l), r.rows, r.cols, isBroadcast(l), a.in, b.in,
                  l.grad.data(), a.dIn, b.dIn);
  }
};

} // namespace

const LayerImpl &BinaryImpl() {
  static const BinaryImplementation impl;
  return impl;
}

} // namespace hdrt::exec
