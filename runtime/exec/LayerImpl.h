//===- LayerImpl.h - what the executor asks of a layer kind -----*- C++ -*-===//
//
// The one home of a layer kind in the executor: its checks and geometry,
// its parameters, the input box each task reads, and its forward and
// backward on this rank's tile, through its kernels (runtime/kernels/) and
// the narrow LayerContext. The step, the transfers and the checkpoints
// never name a kind; they call these. Each kind is one file in
// exec/layers/, found through LayerKinds.def (LayerImpl.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_EXEC_LAYERIMPL_H
#define HDRT_EXEC_LAYERIMPL_H

#include "Errors.h"
#include "LayerContext.h"
#include "Network.h"

#include <string>
#include <vector>

namespace hdrt::exec {

/// A parameter a layer owns: its name's suffix ("weight", also its name
/// among the layer's source tensors), its global shape, split along dim 0
/// (the layer's output channels), and its initial values, offset + bound *
/// u with u uniform in [-1, 1) from the partition-independent generator.
struct ParamSpec {
  std::string suffix;
  std::vector<int64_t> shape;
  float offset = 0, bound = 0;
  /// False for statistics the layer keeps rather than trains.
  bool trained = true;
};

class LayerImpl {
public:
  virtual ~LayerImpl() = default;

  /// The loss ends the forward pass; its tiles' partial losses make the
  /// step's loss. It keeps no output tensor.
  virtual bool isLoss() const { return false; }

  /// Checks the descriptor against the shapes (every rank) and sets up
  /// this rank's state for its task (`l.task >= 0`): geometry, buffers. The
  /// tasks that combine statistics already share `l.statsComm`, grouped as
  /// the kind's entry in LayerKinds.def says.
  virtual void prepare(LayerContext &ctx, Layer &l) const {}
  /// The parameters the layer owns, in checkpoint order.
  virtual std::vector<ParamSpec> params(const Layer &l) const { return {}; }
  /// The box of operand `e`'s tensor (`whole`) that this rank's task reads;
  /// by default the task's own tile, as elementwise layers read.
  virtual Box inputBox(const Layer &l, const Edge &e, const Box &whole) const {
    return l.tile;
  }

  /// This rank's task: the input boxes are in place (`in` of each edge);
  /// forward writes `l.value`, backward reads `l.grad` and writes the
  /// parameter gradients and each input box's gradient (`dIn`, null for
  /// the images).
  virtual void forward(LayerContext &ctx, Layer &l) const = 0;
  virtual void backward(LayerContext &ctx, Layer &l) const = 0;
  /// Whether backward writes every element of each input's `dIn` (rather
  /// than adding to it or leaving some): a producer whose only reader
  /// writes its gradient in place then needs no zeroing before the step.
  virtual bool writesWholeInputGradients() const { return false; }

  /// Whether this task's kernels take its 4-D input and output tiles in
  /// the device's blocked layout of channel block `block`
  /// (Device::channelBlock), as Edge::block and Layer::block name them.
  virtual bool takesBlockedLayouts(const Layer &l, int64_t block) const {
    return false;
  }
  /// Whether the input and output tiles must share one layout: kernels
  /// that map elements in buffer order (ReLU, add, batch norm's loops).
  virtual bool keepsLayout() const { return false; }

  /// A ReLU of its only operand: a producer that appliesRelu may compute
  /// it in its own forward (RankState::fuseRelus).
  virtual bool isRelu() const { return false; }
  /// Whether forward can write relu(its output) into `l.reluInto`'s value
  /// in place of its own output.
  virtual bool appliesRelu() const { return false; }
};

/// The code of `kind`.
const LayerImpl &layerImpl(LayerKind kind);

/// Helpers the kinds share.
inline int64_t extent(const Box &b, int d) { return b.hi[d] - b.lo[d]; }
/// The spatial size of a tile: rows x columns, or 1 for N x F tensors.
inline int64_t spatial(const Box &b) {
  return b.rank == 4 ? extent(b, 2) * extent(b, 3) : 1;
}
/// A window kernel's shape with the layouts of its input and output.
template <typename Shape>
Shape withLayouts(Shape shape, const Edge &in, const Layer &out) {
  shape.layouts = {in.block, out.block};
  return shape;
}

} // namespace hdrt::exec

#endif // HDRT_EXEC_LAYERIMPL_H
