//===- CalibrationWorkloads.cpp - the layers that calibrate a device ------===//

#include "CalibrationWorkloads.h"

namespace hd {

using namespace hdrt;

HostWorkloads calibrationWorkloads(const std::string &backend) {
  bool gpu = backend == "cuda";
  // A 3x3 convolution of C channels on N images of S x S (dense), a ReLU
  // of M x 64 x 64 x 64 values (memory-bound) and one of 8 (launch).
  int64_t n = gpu ? 64 : 8, c = gpu ? 256 : 64, size = gpu ? 56 : 32,
          m = gpu ? 256 : 16;
  HostWorkloads w;
  Conv2dDesc conv3x3{};
  conv3x3.out_channels = c;
  conv3x3.kernel[0] = conv3x3.kernel[1] = 3;
  conv3x3.stride[0] = conv3x3.stride[1] = 1;
  for (int64_t &pad : conv3x3.padding)
    pad = 1;
  conv3x3.dilation[0] = conv3x3.dilation[1] = 1;
  conv3x3.groups = 1;
  conv3x3.bias = 0;
  w.dense.layer = LayerDescriptor::of(conv3x3);
  w.dense.name = "calibrate/conv3x3";
  w.dense.shape = {n, c, size, size};
  w.dense.degrees = {1, 1, 1, 1};
  w.dense.operands = {{{n, c, size, size}, false, true}};
  w.denseFlops = 2.0 * double(n * c * size * size * c * 9);

  w.stream.layer.kind = LayerKind::Relu;
  w.stream.name = "calibrate/relu";
  w.stream.shape = {m, 64, 64, 64};
  w.stream.degrees = {1, 1, 1, 1};
  w.stream.operands = {{w.stream.shape, false, true}};
  w.streamBytes = 2.0 * 4 * double(m * 64 * 64 * 64);

  w.tiny = w.stream;
  w.tiny.shape = {1, 8, 1, 1};
  w.tiny.operands = {{w.tiny.shape, false, true}};
  return w;
}

} // namespace hd
