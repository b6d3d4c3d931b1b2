//===- ImportONNX.cpp - ONNX graphs to the hd dialect ---------------------===//
//
// The graph driver: it checks the graph's inputs and output, builds the
// training function, and walks the nodes in order, handing each to the
// patterns its op type names in the table (Patterns.h), highest benefit
// first, until one matches or fails; a node that none takes is not
// supported.
//
// Shapes are computed by hd itself from the input shape and each layer's
// attributes (the same formulas the op verifiers use), not by ONNX shape
// inference: weights are absent, the batch is chosen at import, and where the
// model declares an output shape, hd's own result is checked against it.
//
// Problems do not stop the walk over the graph: every offending node is
// collected, and one error lists them all.
//
//===----------------------------------------------------------------------===//

#include "hd/Import/ONNX/ImportONNX.h"
#include "Attributes.h"
#include "ImportContext.h"
#include "Patterns.h"

#include "hd/Dialect/HD/IR/HDOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"

#include <onnx/onnx_pb.h>

#include <cstdint>

using namespace mlir;
using namespace hd;
using namespace hd::onnx_import;

namespace {

class GraphImporter {
public:
  GraphImporter(const onnx::ModelProto &model, Location fileLoc,
                const ONNXImportOptions &options)
      : model(model), graph(model.graph()), fileLoc(fileLoc), options(options),
        ctx(graph, fileLoc.getContext()) {
    ctx.setFrozenTensors(options.frozenTensors);
  }

  OwningOpRef<ModuleOp> run();

private:
  /// The images' shape with the batch chosen: N x C x H x W (or N x F).
  FailureOr<Shape> getImageShape();
  /// Imports every node, reporting all that fail in one error.
  LogicalResult importNodes();
  LogicalResult importNode(const onnx::NodeProto &node);
  /// The imported value of the graph's output, checked against the shape
  /// the model declares for it.
  FailureOr<Value> getGraphOutput();
  /// The model's bytes without the data of the tensors layers read their
  /// parameters from: what --export-onnx fills with trained values, small
  /// enough to carry in the IR and the program.
  DenseResourceElementsAttr sourceWithoutParameters();

  const onnx::ModelProto &model;
  const onnx::GraphProto &graph;
  Location fileLoc;
  const ONNXImportOptions &options;
  ImportContext ctx;
};

} // namespace

/// Built once: the table does not depend on the model.
static const PatternTable &getPatternTable() {
  static const PatternTable table = buildPatternTable();
  return table;
}

FailureOr<Shape> GraphImporter::getImageShape() {
  const onnx::ValueInfoProto &input = graph.input(0);
  std::optional<Shape> shape = declaredShape(input);
  if (!shape || (shape->size() != 4 && shape->size() != 2))
    return emitError(fileLoc)
           << "input '" << input.name()
           << "' must be a 4-D N x C x H x W (or 2-D N x F) tensor with a "
              "declared shape";
  if (input.type().tensor_type().elem_type() != onnx::TensorProto::FLOAT)
    return emitError(fileLoc)
           << "input '" << input.name() << "' must be float32";
  for (unsigned d = 1; d < shape->size(); ++d)
    if ((*shape)[d] < 1 || (*shape)[d] > kMaxDim)
      return emitError(fileLoc) << "input '" << input.name() << "' dim " << d
                                << " must be static and at most " << kMaxDim;
  int64_t batch = (*shape)[0];
  if (options.batchSize > kMaxDim)
    return emitError(fileLoc) << "--batch-size=" << options.batchSize
                              << " is above the limit of " << kMaxDim;
  if (options.batchSize > 0) {
    if (batch > 0 && batch != options.batchSize)
      return emitError(fileLoc)
             << "the model has a fixed batch of " << batch
             << "; --batch-size=" << options.batchSize << " conflicts with it";
    batch = options.batchSize;
  } else if (batch < 1) {
    return emitError(fileLoc) << "the batch dim of input '" << input.name()
                              << "' is dynamic: give --batch-size=N";
  }
  (*shape)[0] = batch;
  return *shape;
}

LogicalResult GraphImporter::importNode(const onnx::NodeProto &node) {
  if (node.output_size() < 1 || node.output(0).empty())
    return ctx.fail(node) << "has no output";
  // A Constant's attributes are its value, in whichever encoding the
  // exporter chose, not settings that a pattern reads.
  if (node.op_type() != "Constant" && failed(checkAttributeTypes(node, ctx)))
    return failure();
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return ctx.fail(node) << "domain '" << node.domain()
                          << "' is not supported";
  for (const PatternTable::Entry &pattern :
       getPatternTable().lookup(node.op_type())) {
    PatternResult result = pattern.matchAndImport(node, ctx);
    if (result != PatternResult::NoMatch)
      return success(result == PatternResult::Matched);
  }
  return ctx.fail(node) << "op type is not supported";
}

LogicalResult GraphImporter::importNodes() {
  // The nodes are topologically sorted, so every input is imported (or has
  // failed) before its consumers are reached.
  for (const onnx::NodeProto &node : graph.node()) {
    if (ctx.isAbsorbed(node))
      continue;
    // A failure has been reported, here or at the producer of an input;
    // the walk goes on to find the next one.
    (void)importNode(node);
    if (!ctx.definesOutput(node))
      ctx.poisonOutputs(node);
  }
  if (!ctx.getDiagnostics().empty()) {
    ctx.getDiagnostics().emitCombinedError(fileLoc);
    return failure();
  }
  // Each layer owns its parameters: a tied weight would become copies
  // trained apart, silently unlike the model.
  SmallVector<std::string> shared;
  for (const auto &[name, layers] : ctx.getTensorLayers()) {
    if (layers.size() < 2)
      continue;
    std::string names;
    for (Location loc : layers) {
      auto layer = dyn_cast<NameLoc>(loc);
      names += (names.empty() ? "'" : ", '") +
               (layer ? layer.getName().str() : std::string("?")) + "'";
    }
    shared.push_back("'" + name.str() + "' (" + names + ")");
  }
  if (!shared.empty()) {
    llvm::sort(shared);
    return emitError(fileLoc)
           << "the model shares weights between layers, which hd does not "
              "support (each layer owns its parameters): "
           << llvm::join(shared, "; ");
  }
  // A name that froze nothing is a typo or a misunderstanding; training
  // the tensor anyway would be silent.
  if (SmallVector<StringRef> unused = ctx.getUnusedFrozenTensors();
      !unused.empty())
    return emitError(fileLoc)
           << "--frozen-tensors: '" << llvm::join(unused, "', '")
           << (unused.size() == 1 ? "' is not" : "' are not")
           << " the per-channel operand of an Add, Sub, Mul or Div (a [C, "
              "1, 1] initializer); only those can be frozen";
  return success();
}

FailureOr<Value> GraphImporter::getGraphOutput() {
  const onnx::ValueInfoProto &output = graph.output(0);
  Value result = ctx.lookupValue(output.name());
  if (!result)
    return emitError(fileLoc) << "graph output '" << output.name()
                              << "' is not produced by an imported layer";
  Shape shape = shapeOf(result);
  if (std::optional<Shape> declared = declaredShape(output)) {
    // The batch dim may be symbolic while hd's is the chosen batch.
    bool agrees = declared->size() == shape.size();
    for (unsigned d = 1; agrees && d < shape.size(); ++d)
      agrees = (*declared)[d] < 0 || (*declared)[d] == shape[d];
    if (agrees && (*declared)[0] > 0)
      agrees = (*declared)[0] == shape[0];
    if (!agrees)
      return emitError(fileLoc)
             << "hd computes shape " << shapeStr(shape) << " for output '"
             << output.name() << "', but the model declares "
             << shapeStr(*declared);
  }
  return result;
}

DenseResourceElementsAttr GraphImporter::sourceWithoutParameters() {
  onnx::ModelProto source = model;
  for (onnx::TensorProto &t : *source.mutable_graph()->mutable_initializer())
    if (ctx.getTensorLayers().contains(t.name())) {
      t.clear_raw_data();
      t.clear_float_data();
      t.clear_double_data();
    }
  std::string bytes = source.SerializeAsString();
  auto type = RankedTensorType::get({int64_t(bytes.size())},
                                    ctx.getBuilder().getI8Type());
  return DenseResourceElementsAttr::get(
      type, "hd_source",
      HeapAsmResourceBlob::allocateAndCopyInferAlign(
          ArrayRef<char>(bytes.data(), bytes.size())));
}

OwningOpRef<ModuleOp> GraphImporter::run() {
  if (graph.node_size() == 0) {
    emitError(fileLoc) << "not an ONNX model: it has no graph nodes";
    return {};
  }
  if (graph.input_size() < 1) {
    emitError(fileLoc) << "the ONNX graph has no inputs";
    return {};
  }
  if (graph.output_size() != 1) {
    emitError(fileLoc) << "the ONNX graph has " << graph.output_size()
                       << " outputs; hd imports graphs with exactly one "
                          "output";
    return {};
  }
  FailureOr<Shape> imageShape = getImageShape();
  if (failed(imageShape))
    return {};
  int64_t batch = (*imageShape)[0];

  // The IR names the model, not the path it was read from, so an import
  // does not depend on the directory it ran in.
  OpBuilder &builder = ctx.getBuilder();
  Location modelLoc = NameLoc::get(builder.getStringAttr(options.modelName));
  OwningOpRef<ModuleOp> module = ModuleOp::create(modelLoc);
  (*module)->setAttr(HDDialect::getModelAttrName(),
                     builder.getStringAttr(options.modelName));
  builder.setInsertionPointToEnd(module->getBody());

  // The function takes the images (and, for training, the labels) and
  // returns the loss or the model's output.
  const onnx::ValueInfoProto &input = graph.input(0);
  SmallVector<Type> argTypes{ctx.getTensorType(*imageShape)};
  SmallVector<Location> argLocs{NameLoc::get(
      builder.getStringAttr(input.name().empty() ? "input" : input.name()))};
  if (options.appendLoss) {
    argTypes.push_back(RankedTensorType::get({batch}, builder.getI32Type()));
    argLocs.push_back(NameLoc::get(builder.getStringAttr("labels")));
  }
  auto func = func::FuncOp::create(builder, modelLoc, options.modelName,
                                   builder.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  for (auto [arg, loc] : llvm::zip(body->getArguments(), argLocs))
    arg.setLoc(loc);
  builder.setInsertionPointToStart(body);
  ctx.defineValue(input.name(), body->getArgument(0));

  if (failed(importNodes()))
    return {};
  FailureOr<Value> output = getGraphOutput();
  if (failed(output))
    return {};
  Value result = *output;
  if (options.appendLoss) {
    Shape shape = shapeOf(result);
    if (shape.size() != 2) {
      emitError(fileLoc) << "output '" << graph.output(0).name()
                         << "' has shape " << shapeStr(shape)
                         << "; the loss needs N x classes logits (use "
                            "--no-loss to import an inference graph)";
      return {};
    }
    Type loss = RankedTensorType::get({}, builder.getF32Type());
    result = SoftmaxCrossEntropyOp::create(
        builder, NameLoc::get(builder.getStringAttr("loss")), loss, result,
        body->getArgument(1), /*parallel=*/nullptr);
  }
  func::ReturnOp::create(builder, modelLoc, result);
  func.setFunctionType(
      builder.getFunctionType(argTypes, TypeRange{result.getType()}));

  if (options.keepSource)
    (*module)->setAttr(HDDialect::getSourceAttrName(),
                       sourceWithoutParameters());

  // The verifier reports its own errors above this one.
  if (failed(verify(*module))) {
    emitError(fileLoc) << "the imported model is not a valid hd program";
    return {};
  }
  return module;
}

OwningOpRef<ModuleOp> hd::importONNX(StringRef bytes, Location fileLoc,
                                     const ONNXImportOptions &options) {
  MLIRContext *ctx = fileLoc.getContext();
  ctx->loadDialect<HDDialect, func::FuncDialect>();
  if (bytes.empty()) {
    emitError(fileLoc) << "the file is empty: not an ONNX model";
    return {};
  }
  if (bytes.size() > size_t(INT32_MAX)) {
    emitError(fileLoc) << "the file is larger than 2 GiB, the protobuf limit";
    return {};
  }
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    emitError(fileLoc) << "not a valid ONNX model: the protobuf encoding is "
                          "malformed or truncated";
    return {};
  }
  if (!model.has_graph()) {
    emitError(fileLoc) << "not an ONNX model: it has no graph";
    return {};
  }
  return GraphImporter(model, fileLoc, options).run();
}
