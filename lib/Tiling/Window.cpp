//===- Window.cpp - sliding-window shape and region arithmetic ------------===//

#include "hd/Tiling/Window.h"

#include <algorithm>

namespace hd {

int64_t Window::outputSize(int64_t inputSize) const {
  int64_t span = inputSize + padLo + padHi - extent();
  if (span < 0 || stride < 1)
    return 0;
  if (!ceilMode)
    return span / stride + 1;
  int64_t out = (span + stride - 1) / stride + 1;
  // A window that would start past the input and its leading padding
  // covers only trailing padding: ONNX and PyTorch drop it.
  if ((out - 1) * stride >= inputSize + padLo)
    --out;
  return out;
}

Range Window::inputRange(Range out, int64_t inputSize) const {
  if (out.empty())
    return {0, 0};
  Range r{out.lo * stride - padLo,
          (out.hi - 1) * stride - padLo + extent()};
  return intersect(r, {0, inputSize});
}

void setSamePadding(Window &w, int64_t inputSize, bool upper) {
  int64_t out = (inputSize + w.stride - 1) / w.stride;
  int64_t total =
      std::max<int64_t>(0, (out - 1) * w.stride + w.extent() - inputSize);
  int64_t small = total / 2, big = total - small;
  w.padLo = upper ? small : big;
  w.padHi = upper ? big : small;
}

} // namespace hd
