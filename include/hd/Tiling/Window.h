//===- Window.h - sliding-window shape and region arithmetic ---*- C++ -*-===//
//
// Plain C++ shared by the op verifiers, the ONNX importer and the tiling of
// convolution and pooling layers, so all three agree on every size.
//
//===----------------------------------------------------------------------===//

#ifndef HD_TILING_WINDOW_H
#define HD_TILING_WINDOW_H

#include "hd/Tiling/TileBox.h"

#include <cstdint>

namespace hd {

/// One spatial dimension of a sliding window (convolution or pooling).
struct Window {
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t padLo = 0;
  int64_t padHi = 0;
  int64_t dilation = 1;
  bool ceilMode = false;

  /// Span of the kernel in input elements: (kernel - 1) * dilation + 1.
  int64_t extent() const { return (kernel - 1) * dilation + 1; }

  /// Output size for an input of `inputSize`, or 0 when the kernel does not
  /// fit the padded input. ceilMode follows ONNX/PyTorch: the last window
  /// must start inside the input or its leading padding.
  int64_t outputSize(int64_t inputSize) const;

  /// Bounding range of the input rows that output rows `out` read, clipped
  /// to [0, inputSize). Empty when `out` is empty.
  Range inputRange(Range out, int64_t inputSize) const;
};

/// SAME_UPPER / SAME_LOWER auto-padding of ONNX: total padding so that the
/// output size is ceil(input / stride); the odd element goes at the end for
/// SAME_UPPER and at the beginning for SAME_LOWER.
void setSamePadding(Window &w, int64_t inputSize, bool upper);

} // namespace hd

#endif // HD_TILING_WINDOW_H
