//===- RankState.h - what one rank keeps of the network ---------*- C++ -*-===//
//
// After the definitions, every rank sets up its own part of the network
// (Prepare.cpp): the tile of each layer it has a task in, the kind's
// geometry and buffers, the parameter shards and their initial values, the
// input box of each of its tasks (checked against the compiled transfer
// plan), and the communicators of the groups it belongs to. Then which
// tiles stay in the device's blocked layout (Layouts.cpp) and which ReLUs
// their producers compute (Fusion.cpp). During a step it keeps the books of
// the activations' gradients: which are zeroed up front, and which are
// written by their first reader and added into by the others.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_EXEC_RANKSTATE_H
#define HDRT_EXEC_RANKSTATE_H

#include "LayerContext.h"
#include "Network.h"

namespace hdrt::exec {

/// What changes how a rank is set up.
struct RankOptions {
  uint64_t seed = 1;          // of the parameters' initial values
  bool blockedLayouts = true; // --blocked-layouts
  /// hd-profile: this rank plays task 0 of every layer, alone (no
  /// communicators, no replica checks, no fusion), and a step zeroes the
  /// layer's output gradient when `profileZeroesGradient`.
  bool profiling = false;
  bool profileZeroesGradient = true;
};

class RankState {
public:
  /// `split` makes the communicators of groups (collective).
  RankState(Network &network, Device &device, int rank, SplitWorld split)
      : network_(network), device_(device), rank_(rank),
        split_(std::move(split)) {}

  /// Sets this rank up, and the global batch in `ctx`; returns the batch.
  /// Collective.
  int64_t prepare(LayerContext &ctx, const RankOptions &options);

  // A step's gradient books.
  /// The step begins: zeroes the gradients that are zeroed up front, and
  /// marks the lazily written ones unwritten.
  void startGradients();
  /// Before `p`'s gradient is added into in this step: zeroes it if it is
  /// lazily written and nothing wrote it yet.
  void touchGradient(Layer &p);
  /// Before the consumer's backward: where `e` writes its input gradient.
  void claimInputGradient(Edge &e);

  /// The trained parameters' flat buffers, for an update of all of them.
  const Buffer<float> &values() const { return values_; }
  const Buffer<float> &gradients() const { return gradients_; }
  const Buffer<float> &velocities() const { return velocities_; }

private:
  void prepareLayer(LayerContext &ctx, Layer &l);
  void prepareParams(Layer &l);
  void allocateTrained();
  void initialize(Param &p);
  void prepareEdge(Edge &e);
  void checkPlan(const Edge &e) const;
  void chooseLayouts();
  void fuseRelus();

  Network &network_;
  Device &device_;
  int rank_;
  SplitWorld split_;
  RankOptions options_;
  /// Every trained parameter's values, gradients and momenta, each in one
  /// allocation in the same order (allocateTrained); a Param's `value`,
  /// `grad` and `velocity` are views of them.
  Buffer<float> values_, gradients_, velocities_;
};

} // namespace hdrt::exec

#endif // HDRT_EXEC_RANKSTATE_H
