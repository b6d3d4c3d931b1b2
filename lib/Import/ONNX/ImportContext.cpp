//===- ImportContext.cpp - what an ONNX import pattern may use ------------===//
//
// Parameters (weights, biases, batch-norm statistics) are not activations:
// hd's ops own them. So the context keeps only their shapes, taken from the
// graph rather than the data, since exporters may leave the weights out.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"
#include "Attributes.h"

#include "hd/Dialect/HD/IR/HDDialect.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;

namespace hd::onnx_import {

ImportContext::ImportContext(const onnx::GraphProto &graph,
                             MLIRContext *context)
    : builder(context) {
  // Parameters: initializers and every graph input but the first (the
  // images).
  for (const auto &init : graph.initializer()) {
    constants[init.name()] = &init;
    parameterShapes[init.name()] =
        Shape(init.dims().begin(), init.dims().end());
  }
  for (int i = 1; i < graph.input_size(); ++i)
    if (auto s = declaredShape(graph.input(i)))
      parameterShapes[graph.input(i).name()] = *s;

  for (const auto &[index, node] : llvm::enumerate(graph.node())) {
    std::string name =
        node.name().empty()
            ? llvm::formatv("{0}_{1}", node.op_type(), index).str()
            : node.name();
    nodeLocs[&node] = NameLoc::get(builder.getStringAttr(name));
    for (const auto &in : node.input())
      uses[in].push_back(&node);
    // Constant nodes are known before the walk reaches them, so that a
    // pattern matching a chain of nodes can read the constants that an
    // exporter placed between the chain's links.
    if (node.op_type() == "Constant" && node.output_size() == 1)
      if (const onnx::AttributeProto *value = findAttr(node, "value");
          value && value->type() == onnx::AttributeProto::TENSOR)
        constants[node.output(0)] = &value->t();
  }
}

FailureOr<Value> ImportContext::getActivation(const onnx::NodeProto &node,
                                              unsigned index) {
  if ((int)index >= node.input_size() || node.input(index).empty())
    return fail(node) << "expects an input #" << index;
  const std::string &name = node.input(index);
  if (Value v = values.lookup(name))
    return v;
  if (poisoned.contains(name))
    return failure(); // Already reported at the producer.
  if (pendingPads.count(name))
    return fail(node)
           << "consumes a Pad; hd folds a Pad only into a Conv or AveragePool";
  if (channelsLast.count(name))
    return fail(node) << "input '" << name
                      << "' is channels-last (N x H x W x C); hd reads one "
                         "only in a layer norm over channels, a MatMul on "
                         "channels, the erf GELU, and the Transpose back";
  if (pendingShuffles.count(name))
    return fail(node) << "input '" << name
                      << "' is a 5-D view; hd supports one only in a channel "
                         "shuffle (Reshape, Transpose of dims 1 and 2, "
                         "Reshape back)";
  if (transposedParameters.count(name))
    return fail(node) << "input '" << name
                      << "' is a transposed parameter; hd reads one only as "
                         "a MatMul's weight";
  if (parameterShapes.count(name) || constants.count(name))
    return fail(node) << "input '" << name
                      << "' is a parameter or constant, where hd needs an "
                         "activation";
  return fail(node) << "input '" << name << "' is not produced by any node";
}

std::optional<Shape> ImportContext::getParameterShape(StringRef name) const {
  auto it = parameterShapes.find(name);
  if (it == parameterShapes.end())
    return std::nullopt;
  if (llvm::any_of(it->second, [](int64_t d) { return d < 1 || d > kMaxDim; }))
    return std::nullopt;
  return it->second;
}

ArrayRef<const onnx::NodeProto *>
ImportContext::getUses(StringRef value) const {
  auto it = uses.find(value);
  if (it == uses.end())
    return {};
  return it->second;
}

bool ImportContext::otherInputIsScalar(const onnx::NodeProto &node,
                                       StringRef name, double value) const {
  if (node.input_size() != 2)
    return false;
  StringRef other = node.input(0) == name ? node.input(1) : node.input(0);
  const onnx::TensorProto *t = lookupConstant(other);
  std::optional<double> v = t ? tensorScalar(*t) : std::nullopt;
  return v && std::abs(*v - value) <= 1e-6 * std::abs(value);
}

LogicalResult
ImportContext::checkOnlyFirstOutputUsed(const onnx::NodeProto &node) {
  for (int i = 1; i < node.output_size(); ++i)
    if (!node.output(i).empty() && !getUses(node.output(i)).empty())
      return fail(node) << "its output #" << i << " ('" << node.output(i)
                        << "') is used, and hd supports only the first "
                           "output";
  return success();
}

const PendingPad *ImportContext::lookupPendingPad(StringRef value) const {
  auto it = pendingPads.find(value);
  return it == pendingPads.end() ? nullptr : &it->second;
}

bool ImportContext::definesOutput(const onnx::NodeProto &node) const {
  if (node.output_size() < 1)
    return false;
  const std::string &name = node.output(0);
  return values.count(name) || constants.count(name) ||
         pendingPads.count(name) || pendingShuffles.count(name) ||
         channelsLast.count(name) || transposedParameters.count(name);
}

void ImportContext::poisonOutputs(const onnx::NodeProto &node) {
  for (const auto &out : node.output())
    poisoned.insert(out);
}

void ImportContext::recordTensors(
    Operation *op, ArrayRef<std::pair<StringRef, StringRef>> tensors,
    ArrayRef<StringRef> transposed) {
  SmallVector<NamedAttribute> entries;
  for (auto [param, name] : tensors) {
    entries.push_back(builder.getNamedAttr(param, builder.getStringAttr(name)));
    tensorLayers[name].push_back(op->getLoc());
  }
  op->setAttr(HDDialect::getTensorsAttrName(),
              builder.getDictionaryAttr(entries));
  if (!transposed.empty())
    op->setAttr(HDDialect::getTransposedTensorsAttrName(),
                builder.getStrArrayAttr(transposed));
}

} // namespace hd::onnx_import
