//===- CalibrationWorkloads.cpp - the layers that calibrate a host --------===//

#include "CalibrationWorkloads.h"

namespace hd {

hdrt::HostWorkloads calibrationWorkloads() {
  hdrt::HostWorkloads w;
  hdrt::Conv2dDesc conv3x3{};
  conv3x3.out_channels = 64;
  conv3x3.kernel[0] = conv3x3.kernel[1] = 3;
  conv3x3.stride[0] = conv3x3.stride[1] = 1;
  for (int64_t &pad : conv3x3.padding)
    pad = 1;
  conv3x3.dilation[0] = conv3x3.dilation[1] = 1;
  conv3x3.groups = 1;
  conv3x3.bias = 0;
  w.dense.layer = hdrt::LayerDescriptor::of(conv3x3);
  w.dense.name = "calibrate/conv3x3";
  w.dense.shape = {8, 64, 32, 32};
  w.dense.degrees = {1, 1, 1, 1};
  w.dense.operands = {{{8, 64, 32, 32}, false, true}};
  w.denseFlops = 2.0 * 8 * 64 * 32 * 32 * 64 * 9;

  w.stream.layer.kind = hdrt::LayerKind::Relu;
  w.stream.name = "calibrate/relu";
  w.stream.shape = {16, 64, 64, 64};
  w.stream.degrees = {1, 1, 1, 1};
  w.stream.operands = {{w.stream.shape, false, true}};
  w.streamBytes = 2.0 * 4 * 16 * 64 * 64 * 64;

  w.tiny = w.stream;
  w.tiny.shape = {1, 8, 1, 1};
  w.tiny.operands = {{w.tiny.shape, false, true}};
  return w;
}

} // namespace hd
