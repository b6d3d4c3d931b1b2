//===- RuntimeLayers.cpp - layers as the hdrt runtime takes them ----------===//

#include "RuntimeLayers.h"

#include "hd/Dialect/HD/IR/HDOps.h"

using namespace mlir;
using namespace hd;

const abi::Function hd::abi::functions[] = {
#define HDRT_FUNCTION(Name, Result, ...) {#Name, Result, {__VA_ARGS__}},
#include "hdrt/Abi.def"
};
const size_t hd::abi::numFunctions =
    sizeof(hd::abi::functions) / sizeof(hd::abi::functions[0]);

FailureOr<LayerAttrs> hd::layerAttrs(Operation *op) {
  LayerAttrs a;
  auto append = [&](ArrayRef<int64_t> v) { a.ints.append(v.begin(), v.end()); };
  if (auto conv = dyn_cast<Conv2dOp>(op)) {
    a.kind = abi::Kind::Conv2d;
    a.ints.push_back(conv.getOutChannels());
    append(conv.getKernel());
    append(conv.getStride());
    append(conv.getPadding());
    append(conv.getDilation());
    a.ints.push_back(conv.getGroups());
    a.ints.push_back(conv.getBias());
  } else if (auto pool = dyn_cast<Pool2dOp>(op)) {
    a.kind = abi::Kind::Pool2d;
    a.ints.push_back(pool.getKind() == PoolKind::Max);
    append(pool.getKernel());
    append(pool.getStride());
    append(pool.getPadding());
    a.ints.push_back(pool.getCeilMode());
    a.ints.push_back(pool.getCountIncludePad());
  } else if (auto linear = dyn_cast<LinearOp>(op)) {
    a.kind = abi::Kind::Linear;
    a.ints.push_back(linear.getOutFeatures());
    a.ints.push_back(linear.getBias());
  } else if (auto bn = dyn_cast<BatchNormOp>(op)) {
    a.kind = abi::Kind::BatchNorm;
    a.f0 = bn.getEpsilon().convertToDouble();
    a.f1 = bn.getMomentum().convertToDouble();
  } else if (auto dropout = dyn_cast<DropoutOp>(op)) {
    a.kind = abi::Kind::Dropout;
    a.f0 = dropout.getRatio().convertToDouble();
  } else if (isa<ReluOp>(op)) {
    a.kind = abi::Kind::Relu;
  } else if (isa<AddOp>(op)) {
    a.kind = abi::Kind::Add;
  } else if (isa<ConcatOp>(op)) {
    a.kind = abi::Kind::Concat;
  } else if (isa<FlattenOp>(op)) {
    a.kind = abi::Kind::Flatten;
  } else if (isa<SoftmaxCrossEntropyOp>(op)) {
    a.kind = abi::Kind::SoftmaxCrossEntropy;
  } else {
    return op->emitOpError("has no runtime lowering"), failure();
  }
  return a;
}

int64_t hd::graphInput(Value operand) {
  auto type = cast<RankedTensorType>(operand.getType());
  return type.getElementType().isInteger(32) ? abi::kLabels : abi::kImages;
}

