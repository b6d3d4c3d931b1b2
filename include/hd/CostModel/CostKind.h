//===- CostKind.h - how the cost model prices a kind of layer --*- C++ -*-===//
//
// The cost model never sees an op name. Each op says, through
// LayerOpInterface, which of these classes its compute falls in and which
// statistics its tasks must combine; a new op picks a class and describes
// its statistics instead of adding a case to the cost model. Plain C++, no
// dependencies: the dialect includes it to declare its ops' kinds.
//
//===----------------------------------------------------------------------===//

#ifndef HD_COSTMODEL_COSTKIND_H
#define HD_COSTMODEL_COSTKIND_H

namespace hd {

/// How a layer's compute scales, for the analytic estimate.
enum class CostKind {
  Conv,          // dense: forward, backward-data, backward-weights
  Linear,        // dense, fully connected (where OWT switches to model
                 // parallelism)
  Pool,          // windowed, memory-bound
  Normalization, // statistics, then a scale: about twice the work backward
  Elementwise,   // memory-bound, one pass each way
  Copy,          // moves its inputs into its output (concatenation)
  View,          // a view of its input: free
  Loss,          // the loss over the whole batch
};

/// Statistics a layer's tasks combine with every task that holds the same
/// slice of its output: batch norm's per-channel sums over the tasks that
/// split n, h or w; the softmax's per-sample maximum and sum over the tasks
/// that split c. Empty for layers whose tasks compute alone.
struct SharedStatistics {
  /// Bit d set: the statistics are per index along dimension d, and the
  /// tasks that hold the same indices along all of these dimensions
  /// combine theirs.
  unsigned perDims = 0;
  /// Bytes the model charges per index and all-reduce. It has always
  /// counted every value as an f32, though the runtime sums some in double.
  double bytesPerIndex = 0;
  /// All-reduces per training step (batch norm: forward and backward).
  int rounds = 0;

  bool empty() const { return perDims == 0 || rounds == 0; }
};

} // namespace hd

#endif // HD_COSTMODEL_COSTKIND_H
