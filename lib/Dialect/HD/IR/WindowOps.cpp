//===- WindowOps.cpp - the sliding-window layers: conv2d, pool2d ----------===//
//
// Convolution and pooling read a window of the input around each output
// element, so an output tile reads its rows and columns widened by the
// kernel (a halo), and their verifiers check the window against the input.
// The window arithmetic is plain C++ (hd/Tiling/Window.h), shared with the
// importer, so the verifier and the importer cannot disagree about an
// output size.
//
//===----------------------------------------------------------------------===//

#include "OpVerification.h"

#include "hd/Tiling/Window.h"

using namespace mlir;
using namespace hd;
using namespace hd::detail;

//===----------------------------------------------------------------------===//
// Windows
//===----------------------------------------------------------------------===//

/// Checks kernel/stride/padding/dilation arrays of a 2-D window op and
/// returns the two windows (height, width).
static FailureOr<std::array<Window, 2>>
windowsOf(Operation *op, ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
          ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
          bool ceilMode) {
  if (kernel.size() != 2 || stride.size() != 2 || dilation.size() != 2)
    return op->emitOpError("kernel, stride and dilation need 2 values "
                           "(height, width)"),
           failure();
  if (padding.size() != 4)
    return op->emitOpError("padding needs 4 values [top, left, bottom, "
                           "right], got ")
               << padding.size(),
           failure();
  std::array<Window, 2> w;
  for (unsigned i = 0; i < 2; ++i) {
    if (kernel[i] < 1 || stride[i] < 1 || dilation[i] < 1)
      return op->emitOpError("kernel, stride and dilation must be >= 1"),
             failure();
    if (padding[i] < 0 || padding[i + 2] < 0)
      return op->emitOpError("padding must be >= 0"), failure();
    constexpr int64_t limit = int64_t(1) << 31;
    if (kernel[i] > limit || stride[i] > limit || dilation[i] > limit ||
        padding[i] > limit || padding[i + 2] > limit)
      return op->emitOpError("kernel, stride, dilation and padding must be "
                             "at most 2^31"),
             failure();
    w[i] = Window{kernel[i], stride[i], padding[i], padding[i + 2],
                  dilation[i], ceilMode};
  }
  return w;
}

/// Output rows/columns of `windows` over an NCHW input, or an error when the
/// kernel does not fit.
static FailureOr<std::array<int64_t, 2>>
windowOutput(Operation *op, const std::array<Window, 2> &windows,
             ArrayRef<int64_t> input) {
  static const char *const names[] = {"height", "width"};
  std::array<int64_t, 2> out;
  for (unsigned i = 0; i < 2; ++i) {
    const Window &w = windows[i];
    out[i] = w.outputSize(input[2 + i]);
    if (out[i] < 1)
      return op->emitOpError() << "kernel " << names[i] << " " << w.kernel
                               << " (dilation " << w.dilation
                               << ") does not fit the padded input "
                               << names[i] << " " << input[2 + i] << " + "
                               << w.padLo << " + " << w.padHi,
             failure();
  }
  return out;
}

/// The input box a window op reads for an NCHW output tile, given the input
/// channel range the tile needs.
static TileBox windowInputBox(const std::array<Window, 2> &w,
                              ArrayRef<int64_t> input, const TileBox &out,
                              Range channels) {
  if (out.empty())
    return TileBox({{0, 0}, {0, 0}, {0, 0}, {0, 0}});
  return TileBox({out[0], channels, w[0].inputRange(out[2], input[2]),
                  w[1].inputRange(out[3], input[3])});
}

//===----------------------------------------------------------------------===//
// Conv2dOp
//===----------------------------------------------------------------------===//

static std::array<Window, 2> convWindows(Conv2dOp op) {
  auto k = op.getKernel(), s = op.getStride(), p = op.getPadding(),
       d = op.getDilation();
  return {Window{k[0], s[0], p[0], p[2], d[0], false},
          Window{k[1], s[1], p[1], p[3], d[1], false}};
}

LogicalResult Conv2dOp::verify() {
  if (failed(checkTensor(*this, getInput(), "input", {4}, "4-D NxCxHxW")) ||
      failed(checkTensor(*this, getOutput(), "output", {4}, "4-D NxKxHxW")))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput());
  // I64Attr getters return uint64_t: compare as signed.
  int64_t groups = getGroups(), k = getOutChannels();
  if (groups < 1 || k < 1)
    return emitOpError("out_channels and groups must be >= 1");
  if (in[1] % groups != 0)
    return emitOpError() << "input channels " << in[1]
                         << " are not divisible by groups " << groups;
  if (k % groups != 0)
    return emitOpError() << "out_channels " << k
                         << " are not divisible by groups " << groups;
  auto windows = windowsOf(*this, getKernel(), getStride(), getPadding(),
                           getDilation(), /*ceilMode=*/false);
  if (failed(windows))
    return failure();
  auto hw = windowOutput(*this, *windows, in);
  if (failed(hw))
    return failure();
  if (failed(checkOutputShape(*this, {in[0], k, (*hw)[0], (*hw)[1]})))
    return failure();
  __int128 perOutput = __int128(in[1] / groups) * getKernel()[0] *
                       getKernel()[1];
  if (failed(checkCounts(*this, k * perOutput + k,
                         2 * __int128(in[0]) * k * (*hw)[0] * (*hw)[1] *
                             perOutput)))
    return failure();
  return success();
}

SplitRule Conv2dOp::getSplitRule() {
  // A channel split must keep groups whole: each task runs one grouped
  // convolution.
  SplitRule rule;
  rule.channelGroups = static_cast<int64_t>(getGroups());
  return rule;
}

TileBox Conv2dOp::getInputBox(unsigned, const TileBox &out) {
  ArrayRef<int64_t> in = shapeOf(getInput());
  int64_t groups = getGroups();
  int64_t outPerGroup = getOutChannels() / groups, inPerGroup = in[1] / groups;
  Range channels{0, in[1]};
  if (groups > 1 && !out[1].empty())
    channels = {out[1].lo / outPerGroup * inPerGroup,
                ((out[1].hi - 1) / outPerGroup + 1) * inPerGroup};
  return windowInputBox(convWindows(*this), in, out, channels);
}

int64_t Conv2dOp::getParameterCount() {
  ArrayRef<int64_t> in = shapeOf(getInput());
  int64_t k = getOutChannels();
  int64_t groups = getGroups();
  return k * (in[1] / groups) * getKernel()[0] * getKernel()[1] +
         (getBias() ? k : 0);
}

int64_t Conv2dOp::getForwardFlops() {
  ArrayRef<int64_t> in = shapeOf(getInput());
  int64_t outputs = numElements(shapeOf(getOutput()).vec());
  int64_t groups = getGroups();
  int64_t macsPerOutput = (in[1] / groups) * getKernel()[0] *
                          getKernel()[1];
  return 2 * outputs * macsPerOutput + (getBias() ? outputs : 0);
}

//===----------------------------------------------------------------------===//
// Pool2dOp
//===----------------------------------------------------------------------===//

static std::array<Window, 2> poolWindows(Pool2dOp op) {
  auto k = op.getKernel(), s = op.getStride(), p = op.getPadding();
  bool ceil = op.getCeilMode();
  return {Window{k[0], s[0], p[0], p[2], 1, ceil},
          Window{k[1], s[1], p[1], p[3], 1, ceil}};
}

LogicalResult Pool2dOp::verify() {
  if (failed(checkTensor(*this, getInput(), "input", {4}, "4-D NxCxHxW")) ||
      failed(checkTensor(*this, getOutput(), "output", {4}, "4-D NxCxHxW")))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput());
  auto windows = windowsOf(*this, getKernel(), getStride(), getPadding(),
                           {1, 1}, getCeilMode());
  if (failed(windows))
    return failure();
  if (getGlobal()) {
    if (getKernel()[0] != in[2] || getKernel()[1] != in[3] ||
        llvm::any_of(getStride(), [](int64_t s) { return s != 1; }) ||
        llvm::any_of(getPadding(), [](int64_t p) { return p != 0; }))
      return emitOpError() << "global pooling needs kernel = input size "
                           << in[2] << "x" << in[3]
                           << ", stride 1 and no padding";
  }
  for (unsigned i = 0; i < 2; ++i)
    if ((*windows)[i].padLo >= (*windows)[i].kernel ||
        (*windows)[i].padHi >= (*windows)[i].kernel)
      return emitOpError("padding must be smaller than the kernel, so every "
                         "window holds an input element");
  auto hw = windowOutput(*this, *windows, in);
  if (failed(hw))
    return failure();
  if (failed(checkOutputShape(*this, {in[0], in[1], (*hw)[0], (*hw)[1]})))
    return failure();
  return checkCounts(*this, 0,
                     __int128(in[0]) * in[1] * (*hw)[0] * (*hw)[1] *
                         getKernel()[0] * getKernel()[1]);
}

TileBox Pool2dOp::getInputBox(unsigned, const TileBox &out) {
  return windowInputBox(poolWindows(*this), shapeOf(getInput()), out, out[1]);
}

int64_t Pool2dOp::getForwardFlops() {
  return numElements(shapeOf(getOutput()).vec()) * getKernel()[0] *
         getKernel()[1];
}

int64_t Pool2dOp::getWorkspaceBytesPerElement() {
  // Max pooling keeps where each window's maximum is (the CPU runtime's
  // oneDNN workspace: a byte per output under 256 window elements, else
  // four).
  if (getKind() != PoolKind::Max)
    return 0;
  return getKernel()[0] * getKernel()[1] < 256 ? 1 : 4;
}
