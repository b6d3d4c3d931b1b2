//===- ImportContext.h - what an ONNX import pattern may use ----*- C++ -*-===//
//
// Patterns see the graph only through this class: the values imported so
// far, the parameters and constants, who reads each value, the folds that
// wait for their consumer, the builder, and where to report a node that
// cannot be imported. Keeping that surface in one place is what lets a
// pattern be a small function in its family's file, and lets a pattern
// that matches a chain of nodes (x * Sigmoid(x), a layer norm's
// ReduceMean ... Add) look at a value's consumers and at constants the
// same way a single-node pattern looks at its inputs.
//
//===----------------------------------------------------------------------===//

#ifndef HD_LIB_IMPORT_ONNX_IMPORTCONTEXT_H
#define HD_LIB_IMPORT_ONNX_IMPORTCONTEXT_H

#include "NodeDiagnostics.h"
#include "Shape.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <onnx/onnx_pb.h>

#include <deque>
#include <optional>

namespace hd::onnx_import {

/// A zero Pad whose only consumer is a Conv or AveragePool: hd folds it into
/// that layer's padding instead of materializing the padded tensor.
struct PendingPad {
  mlir::Value input;
  int64_t top, left, bottom, right;

  /// Adds this padding to a layer's [top, left, bottom, right] (each at
  /// most 2^31: no overflow).
  void addTo(Shape &pads) const {
    pads[0] += top;
    pads[1] += left;
    pads[2] += bottom;
    pads[3] += right;
  }
};

/// ShuffleNet's channel shuffle while its three nodes are read: the
/// Reshape of an N x C x H x W `input` to N x groups x C/groups x H x W,
/// then (`transposed`) the Transpose of dims 1 and 2; the Reshape back to
/// 4-D makes one hd.channel_shuffle.
struct PendingShuffle {
  mlir::Value input;
  int64_t groups;
  bool transposed;
};

class ImportContext {
public:
  /// Indexes `graph` (which must outlive the context): its parameters and
  /// their shapes, its initializers, each node's location and each value's
  /// consumers.
  ImportContext(const onnx::GraphProto &graph, mlir::MLIRContext *context);

  mlir::OpBuilder &getBuilder() { return builder; }

  /// The f32 tensor type of `shape`, hd's only activation element type.
  mlir::RankedTensorType getTensorType(llvm::ArrayRef<int64_t> shape) {
    return mlir::RankedTensorType::get(shape, builder.getF32Type());
  }

  /// The node's name as a location: what the imported op carries, and what
  /// reports name. Unnamed nodes are called OPTYPE_INDEX.
  mlir::NameLoc getLoc(const onnx::NodeProto &node) const {
    return nodeLocs.lookup(&node);
  }

  //===--------------------------------------------------------------------===//
  // Reporting
  //===--------------------------------------------------------------------===//

  /// Starts the reason why `node` cannot be imported; stream the reason in
  /// and return the result, which converts to failure():
  ///   return ctx.fail(node) << "attribute axis=" << axis << " ...";
  /// A pattern that fails without reporting stays silent; that is right
  /// only when the problem was already reported at another node.
  mlir::Diagnostic &fail(const onnx::NodeProto &node) {
    return diagnostics.report(node, getLoc(node));
  }

  const NodeDiagnostics &getDiagnostics() const { return diagnostics; }

  //===--------------------------------------------------------------------===//
  // Reading the graph
  //===--------------------------------------------------------------------===//

  /// The imported activation that is input #index of `node`. Reports why
  /// there is none, except when the input comes from a node that failed
  /// (reported there already).
  mlir::FailureOr<mlir::Value> getActivation(const onnx::NodeProto &node,
                                             unsigned index);

  /// The same, for an elementwise layer: fails, reporting why, unless the
  /// activation is 2-D (N x F) or 4-D (N x C x H x W).
  mlir::FailureOr<mlir::Value> getElementwiseInput(const onnx::NodeProto &node,
                                                   unsigned index) {
    mlir::FailureOr<mlir::Value> x = getActivation(node, index);
    if (mlir::failed(x))
      return mlir::failure();
    size_t rank = shapeOf(*x).size();
    if (rank != 2 && rank != 4)
      return fail(node) << "input must be 2-D or 4-D; it is " << rank << "-D";
    return x;
  }

  /// Static shape of the parameter `name` (a graph input other than the
  /// first, or an initializer); nullopt when unknown, dynamic or too large.
  std::optional<Shape> getParameterShape(llvm::StringRef name) const;

  /// The constant tensor `name` (an initializer or a Constant node's value);
  /// null when it is not a constant.
  const onnx::TensorProto *lookupConstant(llvm::StringRef name) const {
    return constants.lookup(name);
  }

  /// The nodes that read `value`, once per input slot that names it; the
  /// graph's output does not count.
  llvm::ArrayRef<const onnx::NodeProto *> getUses(llvm::StringRef value) const;

  /// The one node that reads `value`, or null when there are none or
  /// several: what a pattern that matches a chain of nodes follows.
  const onnx::NodeProto *getOnlyUse(llvm::StringRef value) const {
    llvm::ArrayRef<const onnx::NodeProto *> users = getUses(value);
    return users.size() == 1 ? users.front() : nullptr;
  }
  /// The same, when that node has `opType`.
  const onnx::NodeProto *getOnlyUse(llvm::StringRef value,
                                    llvm::StringRef opType) const {
    const onnx::NodeProto *use = getOnlyUse(value);
    return use && use->op_type() == opType ? use : nullptr;
  }

  /// Whether the input of the binary `node` other than `name` is the
  /// scalar constant `value`, within float rounding.
  bool otherInputIsScalar(const onnx::NodeProto &node, llvm::StringRef name,
                          double value) const;

  /// The hd value (N x C x H x W) whose channels-last permutation the ONNX
  /// value `name` is (ConvNeXt's blocks between its Transposes); null when
  /// it is not one.
  mlir::Value lookupChannelsLast(llvm::StringRef name) const {
    return channelsLast.lookup(name);
  }

  /// The parameter whose 2-D transpose `name` is (a Transpose of a
  /// MatMul's weight); empty when it is not one.
  llvm::StringRef lookupTransposedParameter(llvm::StringRef name) const {
    auto it = transposedParameters.find(name);
    return it == transposedParameters.end() ? llvm::StringRef()
                                            : llvm::StringRef(it->second);
  }

  /// The channel shuffle `name` is a step of; null when it is not one.
  const PendingShuffle *lookupPendingShuffle(llvm::StringRef name) const {
    auto it = pendingShuffles.find(name);
    return it == pendingShuffles.end() ? nullptr : &it->second;
  }

  /// Reports and fails when an output of `node` other than the first is
  /// used: hd's ops have one result.
  mlir::LogicalResult checkOnlyFirstOutputUsed(const onnx::NodeProto &node);

  /// The Pad folded into the consumer of `value`, when `value` is a Pad's
  /// output; null otherwise.
  const PendingPad *lookupPendingPad(llvm::StringRef value) const;

  /// For a layer that absorbs a zero Pad (Conv, AveragePool): the Pad that
  /// feeds its input #0, or null.
  const PendingPad *getInputPad(const onnx::NodeProto &node) const {
    return node.input_size() > 0 ? lookupPendingPad(node.input(0)) : nullptr;
  }
  /// Its input #0 as the layer reads it: the folded Pad's own input, or the
  /// activation.
  mlir::FailureOr<mlir::Value> getPaddedInput(const onnx::NodeProto &node) {
    if (const PendingPad *pad = getInputPad(node))
      return pad->input;
    return getActivation(node, 0);
  }

  //===--------------------------------------------------------------------===//
  // Defining what a node produces
  //===--------------------------------------------------------------------===//

  /// `node`'s first output is `value`.
  void defineOutput(const onnx::NodeProto &node, mlir::Value value) {
    defineValue(node.output(0), value);
  }
  void defineValue(llvm::StringRef name, mlir::Value value) {
    values[name] = value;
  }

  /// `node`'s first output is the constant `value`, for the patterns that
  /// read constant inputs; it has no IR.
  void defineConstant(const onnx::NodeProto &node,
                      const onnx::TensorProto &value) {
    constants[node.output(0)] = &value;
  }

  /// The value `name` is the constant `value`, computed at import (shape
  /// arithmetic); it has no IR.
  void defineConstant(llvm::StringRef name, onnx::TensorProto value) {
    constants[name] = &folded.emplace_back(std::move(value));
  }

  /// The value `name` is the channels-last permutation of `value`.
  void defineChannelsLast(llvm::StringRef name, mlir::Value value) {
    channelsLast[name] = value;
  }

  /// The value `name` is the transpose of the 2-D parameter `parameter`.
  void defineTransposedParameter(llvm::StringRef name,
                                 llvm::StringRef parameter) {
    transposedParameters[name] = parameter.str();
  }

  /// The value `name` is a step of a channel shuffle.
  void deferShuffle(llvm::StringRef name, PendingShuffle shuffle) {
    pendingShuffles[name] = shuffle;
  }

  /// A pattern that matched a chain of nodes defined the chain's last
  /// output; the driver skips `node`, one of the chain's inner nodes.
  void absorb(const onnx::NodeProto &node) { absorbed.insert(&node); }
  bool isAbsorbed(const onnx::NodeProto &node) const {
    return absorbed.contains(&node);
  }

  /// `node`'s first output is a Pad that waits to be folded into its
  /// consumer; it has no IR.
  void deferPad(const onnx::NodeProto &node, PendingPad pad) {
    pendingPads[node.output(0)] = pad;
  }

  /// Records which ONNX tensors hold the parameters (and statistics) of
  /// `op`, the layer made from a node, by the runtime's names (weight,
  /// bias, scale, shift, running_mean, running_var): programs start from
  /// them (--init) and write them back (--export-onnx). `transposed` lists
  /// those stored as the transpose of hd's layout.
  void recordTensors(
      mlir::Operation *op,
      llvm::ArrayRef<std::pair<llvm::StringRef, llvm::StringRef>> tensors,
      llvm::ArrayRef<llvm::StringRef> transposed = {});

  /// Every tensor recordTensors named, with the layers (their locations)
  /// it gave it to: the driver keeps the source model without their data,
  /// and refuses a tensor of more than one layer, a weight the model shares,
  /// which hd cannot train (each layer owns its parameters).
  const llvm::StringMap<llvm::SmallVector<mlir::Location, 1>> &
  getTensorLayers() const {
    return tensorLayers;
  }

  /// Whether the user named the parameter `name` as a buffer the model
  /// keeps fixed (--frozen-tensors), for a pattern that freezes it; the
  /// driver reports the names no pattern asked about.
  bool freezes(llvm::StringRef name) {
    if (!frozen.contains(name))
      return false;
    frozenUsed.insert(name);
    return true;
  }

  //===--------------------------------------------------------------------===//
  // For the driver
  //===--------------------------------------------------------------------===//

  /// The tensors the user froze (ONNXImportOptions::frozenTensors).
  void setFrozenTensors(llvm::ArrayRef<std::string> names) {
    for (const std::string &name : names)
      frozen.insert(name);
  }
  /// Those no pattern froze.
  llvm::SmallVector<llvm::StringRef> getUnusedFrozenTensors() const {
    llvm::SmallVector<llvm::StringRef> unused;
    for (const auto &entry : frozen)
      if (!frozenUsed.contains(entry.getKey()))
        unused.push_back(entry.getKey());
    llvm::sort(unused);
    return unused;
  }

  /// The imported value `name`; null when there is none.
  mlir::Value lookupValue(llvm::StringRef name) const {
    return values.lookup(name);
  }

  /// Whether `node`'s first output was defined, as a value, a constant or a
  /// pending Pad.
  bool definesOutput(const onnx::NodeProto &node) const;

  /// Marks the outputs of `node`, which failed, so that their consumers
  /// stay silent and each problem is reported once, at its source.
  void poisonOutputs(const onnx::NodeProto &node);

private:
  mlir::OpBuilder builder;
  NodeDiagnostics diagnostics;

  llvm::DenseMap<const onnx::NodeProto *, mlir::NameLoc> nodeLocs;
  llvm::StringMap<llvm::SmallVector<const onnx::NodeProto *, 1>> uses;
  llvm::StringMap<Shape> parameterShapes;
  llvm::StringMap<const onnx::TensorProto *> constants;

  llvm::StringMap<mlir::Value> values;
  llvm::StringMap<llvm::SmallVector<mlir::Location, 1>> tensorLayers;
  llvm::StringMap<PendingPad> pendingPads;
  llvm::StringMap<PendingShuffle> pendingShuffles;
  llvm::StringMap<mlir::Value> channelsLast;
  llvm::StringMap<std::string> transposedParameters;
  /// Constants computed at import; a deque keeps their addresses.
  std::deque<onnx::TensorProto> folded;
  llvm::DenseSet<const onnx::NodeProto *> absorbed;
  llvm::StringSet<> poisoned;
  llvm::StringSet<> frozen, frozenUsed;
};

} // namespace hd::onnx_import

#endif // HD_LIB_IMPORT_ONNX_IMPORTCONTEXT_H
