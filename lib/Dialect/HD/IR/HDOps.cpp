//===- HDOps.cpp - hd layer ops: verifiers and tiling ---------------------===//
//
// Shape formulas live in hd/Tiling (plain C++), shared with the importer, so
// the verifier and the importer cannot disagree about an output size.
//
//===----------------------------------------------------------------------===//

#include "OpVerification.h"

#include "hd/Dialect/HD/IR/HDOps.h"
#include "hd/Tiling/Window.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

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

//===----------------------------------------------------------------------===//
// LinearOp
//===----------------------------------------------------------------------===//

LogicalResult LinearOp::verify() {
  if (failed(checkTensor(*this, getInput(), "input", {2}, "2-D NxF")) ||
      failed(checkTensor(*this, getOutput(), "output", {2}, "2-D NxK")))
    return failure();
  // I64Attr getters return uint64_t: compare as signed.
  int64_t k = getOutFeatures();
  if (k < 1)
    return emitOpError("out_features must be >= 1");
  ArrayRef<int64_t> in = shapeOf(getInput());
  if (failed(checkOutputShape(*this, {in[0], k})))
    return failure();
  return checkCounts(*this, __int128(k) * (in[1] + 1),
                     2 * __int128(in[0]) * k * in[1]);
}

TileBox LinearOp::getInputBox(unsigned, const TileBox &out) {
  if (out.empty())
    return TileBox({{0, 0}, {0, 0}});
  return TileBox({out[0], {0, shapeOf(getInput())[1]}});
}

int64_t LinearOp::getParameterCount() {
  int64_t k = getOutFeatures();
  return k * shapeOf(getInput())[1] + (getBias() ? k : 0);
}

int64_t LinearOp::getForwardFlops() {
  int64_t outputs = numElements(shapeOf(getOutput()).vec());
  return 2 * outputs * shapeOf(getInput())[1] + (getBias() ? outputs : 0);
}

//===----------------------------------------------------------------------===//
// BatchNormOp (the elementwise layers are in ElementwiseOps.cpp)
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::verify() {
  if (failed(checkTensor(*this, getInput(), "input", {4}, "4-D NxCxHxW")))
    return failure();
  if (!(getEpsilon().convertToDouble() > 0.0))
    return emitOpError("epsilon must be positive");
  double m = getMomentum().convertToDouble();
  if (!(m >= 0.0 && m <= 1.0))
    return emitOpError() << "momentum " << numStr(m) << " must be in [0, 1]";
  return success();
}

SharedStatistics BatchNormOp::getSharedStatistics() {
  // Per channel, the sum and the sum of squares (forward), then the sums
  // of the gradient and of its product with the input (backward); the
  // model counts each pair as two floats.
  return {/*perDims=*/1u << 1, /*bytesPerIndex=*/8, /*rounds=*/2};
}

int64_t BatchNormOp::getParameterCount() {
  return 2 * shapeOf(getInput())[1];
}

int64_t BatchNormOp::getForwardFlops() {
  // Per element: sum and sum of squares (3), normalize and scale-shift (4).
  return 7 * numElements(shapeOf(getInput()).vec());
}

//===----------------------------------------------------------------------===//
// LayerNormOp
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::verify() {
  if (failed(checkTensor(*this, getInput(), "input", {4}, "4-D NxCxHxW")))
    return failure();
  if (!(getEpsilon().convertToDouble() > 0.0))
    return emitOpError("epsilon must be positive");
  return success();
}

SharedStatistics LayerNormOp::getSharedStatistics() {
  // Per pixel, the sum and the sum of squares over its channels (forward),
  // then of the scaled gradient and its product with the normalized input
  // (backward): a reduction across the tasks that split the channels.
  return {/*perDims=*/(1u << 0) | (1u << 2) | (1u << 3), /*bytesPerIndex=*/8,
          /*rounds=*/2};
}

int64_t LayerNormOp::getParameterCount() {
  return 2 * shapeOf(getInput())[1];
}

int64_t LayerNormOp::getForwardFlops() {
  // As batch norm: sums (3), normalize and scale-shift (4) per element.
  return 7 * numElements(shapeOf(getInput()).vec());
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  if (failed(checkTensor(*this, getOutput(), "output", {2, 4},
                         "2-D NxF or 4-D NxCxHxW")))
    return failure();
  ArrayRef<int64_t> out = shapeOf(getOutput());
  int64_t channels = 0;
  for (auto [i, v] : llvm::enumerate(getInputs())) {
    if (failed(checkTensor(*this, v, "every input", {2, 4},
                           "2-D NxF or 4-D NxCxHxW")))
      return failure();
    ArrayRef<int64_t> in = shapeOf(v);
    if (in.size() != out.size())
      return emitOpError() << "input #" << i << " has rank " << in.size()
                           << " but the output has rank " << out.size();
    for (unsigned d = 0; d < in.size(); ++d)
      if (d != 1 && in[d] != out[d])
        return emitOpError() << "input #" << i << " has shape "
                             << shapeStr(in) << "; all dims but dim 1 must "
                             << "match the output " << shapeStr(out);
    channels += in[1];
  }
  if (channels != out[1])
    return emitOpError() << "output has " << out[1]
                         << " channels but the inputs sum to " << channels;
  return success();
}

TileBox ConcatOp::getInputBox(unsigned operandIndex, const TileBox &out) {
  int64_t offset = 0;
  for (unsigned i = 0; i < operandIndex; ++i)
    offset += shapeOf(getInputs()[i])[1];
  int64_t channels = shapeOf(getInputs()[operandIndex])[1];
  TileBox box = out;
  Range mine = intersect(out[1], {offset, offset + channels});
  box[1] = {mine.lo - offset, mine.hi - offset};
  return box;
}

//===----------------------------------------------------------------------===//
// FlattenOp
//===----------------------------------------------------------------------===//

LogicalResult FlattenOp::verify() {
  if (failed(checkTensor(*this, getInput(), "input", {4}, "4-D NxCxHxW")) ||
      failed(checkTensor(*this, getOutput(), "output", {2}, "2-D NxF")))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput());
  return checkOutputShape(*this, {in[0], in[1] * in[2] * in[3]});
}

TileBox FlattenOp::getInputBox(unsigned, const TileBox &out) {
  ArrayRef<int64_t> in = shapeOf(getInput());
  if (out.empty())
    return TileBox({{0, 0}, {0, 0}, {0, 0}, {0, 0}});
  int64_t plane = in[2] * in[3];
  Range channels{out[1].lo / plane, (out[1].hi + plane - 1) / plane};
  return TileBox({out[0], channels, {0, in[2]}, {0, in[3]}});
}

int64_t FlattenOp::getForwardFlops() { return 0; }

//===----------------------------------------------------------------------===//
// SoftmaxCrossEntropyOp
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxCrossEntropyOp::verify() {
  if (failed(checkTensor(*this, getLogits(), "logits", {2}, "2-D NxK")) ||
      failed(checkTensor(*this, getLabels(), "labels", {1}, "1-D N")))
    return failure();
  int64_t n = shapeOf(getLogits())[0], labels = shapeOf(getLabels())[0];
  if (n != labels)
    return emitOpError() << "has " << labels << " labels for a batch of "
                         << n << " logits";
  return success();
}

ArrayRef<int64_t> SoftmaxCrossEntropyOp::getPartitionedShape() {
  return shapeOf(getLogits());
}

TileBox SoftmaxCrossEntropyOp::getInputBox(unsigned operandIndex,
                                           const TileBox &out) {
  if (operandIndex == 0)
    return out;
  return TileBox({out.empty() ? Range{0, 0} : out[0]});
}

SharedStatistics SoftmaxCrossEntropyOp::getSharedStatistics() {
  // Per sample, the maximum and then the sum of exponentials over the
  // classes: two all-reduces of one float each.
  return {/*perDims=*/1u << 0, /*bytesPerIndex=*/4, /*rounds=*/2};
}

int64_t SoftmaxCrossEntropyOp::getForwardFlops() {
  // Per logit: max, subtract, exp and sum.
  return 4 * numElements(shapeOf(getLogits()).vec());
}

//===----------------------------------------------------------------------===//
// TransferOp and GradSyncOp
//===----------------------------------------------------------------------===//

/// A configuration fits a tensor of `rank` dims: h and w only for 4-D.
static LogicalResult checkConfigRank(Operation *op, StringRef name,
                                     PConfigAttr config, int64_t rank) {
  if (rank != 4 && (config.getH() || config.getW()))
    return op->emitOpError() << "'" << name << "' " << config
                             << " splits h or w of a " << rank
                             << "-D tensor";
  return success();
}

LogicalResult TransferOp::verify() {
  if (failed(checkTensor(*this, getInput(), "input", {2, 4},
                         "2-D NxF or 4-D NxCxHxW")))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(getInput());
  if (failed(checkConfigRank(*this, "from", getFrom(), shape.size())))
    return failure();
  // `from` splits this tensor; `to` splits the consumer's output, whose
  // shape the consumer's own verifier checks it against.
  static const char *const dims[] = {"n", "c", "h", "w"};
  PConfigAttr from = getFrom();
  int64_t degrees[] = {from.getN(), from.getC(), from.getHeightDegree(),
                       from.getWidthDegree()};
  for (size_t d = 0; d < shape.size(); ++d)
    if (degrees[d] > shape[d])
      return emitOpError() << "'from' degree " << dims[d] << "="
                           << degrees[d] << " exceeds dim " << d << " of size "
                           << shape[d];
  for (PConfigAttr config : {getFrom(), getTo()}) {
    int64_t tasks = 1;
    for (int64_t d : {config.getN(), config.getC(), config.getHeightDegree(),
                      config.getWidthDegree()}) {
      if (d > HDDialect::kMaxDevices)
        return emitOpError() << config << " has more than "
                             << HDDialect::kMaxDevices << " tasks";
      tasks *= d;
      if (tasks > HDDialect::kMaxDevices)
        return emitOpError() << config << " has more than "
                             << HDDialect::kMaxDevices << " tasks";
    }
  }
  for (auto [i, attr] : llvm::enumerate(getMoves())) {
    auto move = cast<MoveAttr>(attr);
    if (move.getSrc() >= getFrom().getNumTasks() ||
        move.getDst() >= getTo().getNumTasks())
      return emitOpError() << "move #" << i << " goes from task "
                           << move.getSrc() << " to task " << move.getDst()
                           << ", but 'from' has " << getFrom().getNumTasks()
                           << " tasks and 'to' has " << getTo().getNumTasks();
    if (move.getLo().size() != shape.size())
      return emitOpError() << "move #" << i << " has a " << move.getLo().size()
                           << "-D box for a " << shape.size() << "-D tensor";
    for (size_t d = 0; d < shape.size(); ++d)
      if (move.getHi()[d] > shape[d])
        return emitOpError() << "move #" << i << " reaches " << move.getHi()[d]
                             << " along dim " << d << " of size " << shape[d];
  }
  return success();
}

LogicalResult GradSyncOp::verify() {
  auto layer = getLayerOutput().getDefiningOp<LayerOpInterface>();
  if (!layer || layer.getParameterCount() == 0)
    return emitOpError("syncs the gradients of a layer with parameters; its "
                       "operand must be such a layer's output");
  if (getGroups().empty())
    return emitOpError("needs at least one replica group");
  for (auto [i, attr] : llvm::enumerate(getGroups())) {
    ArrayRef<int64_t> tasks = cast<DenseI64ArrayAttr>(attr).asArrayRef();
    if (tasks.size() < 2)
      return emitOpError() << "replica group #" << i
                           << " has fewer than 2 tasks: nothing to sync";
    llvm::SmallDenseSet<int64_t> seen;
    for (int64_t t : tasks)
      if (t < 0 || !seen.insert(t).second)
        return emitOpError() << "replica group #" << i
                             << " lists task " << t
                             << " twice or a negative task";
  }
  if (static_cast<int64_t>(getBytes()) < 1)
    return emitOpError("bytes must be positive");
  return success();
}

#define GET_OP_CLASSES
#include "hd/Dialect/HD/IR/HDOps.cpp.inc"
