//===- LayerGraphBuilder.cpp - hd IR to the cost model's layer graph ------===//
//
// Each layer op becomes a Layer through LayerOpInterface alone, keyed by a
// signature of its op, attributes and types (layers with equal signatures
// cost the same), and the module by a stable hash of them and its edges, so
// that a saved strategy applies only to its own model.
//
//===----------------------------------------------------------------------===//

#include "hd/Dialect/HD/Analysis/LayerGraphBuilder.h"
#include "hd/Dialect/HD/IR/HDNumerics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace hd {

/// Op name, the op's own attributes (not its configuration, nor metadata
/// such as the source tensors of its parameters) and types.
static std::string signatureOf(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << op->getName();
  for (NamedAttribute attr : attributesButConfig(op))
    os << " " << attr.getName() << "=" << attr.getValue();
  os << " :";
  for (Type t : op->getOperandTypes())
    os << " " << t;
  os << " ->";
  for (Type t : op->getResultTypes())
    os << " " << t;
  return s;
}

/// FNV-1a, 64 bits: stable across runs and machines.
static uint64_t fnv1a(StringRef bytes, uint64_t h = 14695981039346656037ull) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

FailureOr<ModuleLayers> buildLayerGraph(ModuleOp module, StringRef tool) {
  ModuleLayers result;
  LayerGraph &graph = result.graph;
  if (auto name =
          module->getAttrOfType<StringAttr>(HDDialect::getModelAttrName()))
    graph.model = name.str();
  func::FuncOp func;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isExternal() || f.getOps<LayerOpInterface>().empty())
      continue;
    if (func) {
      f.emitError() << tool
                    << " handles one training function per "
                       "module; '"
                    << func.getName() << "' has layers too";
      return failure();
    }
    func = f;
  }
  if (!func)
    return result;
  if (graph.model.empty())
    graph.model = func.getName().str();

  llvm::DenseMap<Value, int> producerOf;
  uint64_t hash = fnv1a("hd-model-1");
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp, GradSyncOp>(op))
      continue;
    // A transfer moves a tensor between layers; the graph's edge still runs
    // from the layer that made it.
    if (auto transfer = dyn_cast<TransferOp>(op)) {
      auto it = producerOf.find(transfer.getInput());
      if (it != producerOf.end())
        producerOf[transfer.getOutput()] = it->second;
      continue;
    }
    auto layerOp = dyn_cast<LayerOpInterface>(op);
    if (!layerOp) {
      op.emitError() << "is not an hd layer; " << tool
                     << " takes graphs of hd layers only";
      return failure();
    }
    Layer layer;
    layer.name = getLayerName(&op);
    layer.op = op.getName().stripDialect().str();
    layer.kind = layerOp.getCostKind();
    layer.shape = layerOp.getPartitionedShape().vec();
    layer.params = layerOp.getParameterCount();
    layer.forwardFlops = layerOp.getForwardFlops();
    layer.signature = signatureOf(&op);
    layer.split = layerOp.getSplitRule();
    layer.statistics = layerOp.getSharedStatistics();
    layer.workspaceBytesPerElement = layerOp.getWorkspaceBytesPerElement();
    for (Value v : op.getOperands()) {
      auto it = producerOf.find(v);
      layer.inputs.push_back(
          {it == producerOf.end() ? -1 : it->second,
           cast<RankedTensorType>(v.getType()).getShape().vec()});
    }
    layer.inputBox = [layerOp](unsigned operand, const TileBox &tile) mutable {
      return layerOp.getInputBox(operand, tile);
    };
    hash = fnv1a(layer.signature, hash);
    for (const LayerInput &in : layer.inputs)
      hash = fnv1a(std::to_string(in.producer) + ";", hash);
    producerOf[op.getResult(0)] = static_cast<int>(result.ops.size());
    result.ops.push_back(layerOp);
    graph.layers.push_back(std::move(layer));
  }
  std::vector<int> readers(graph.layers.size(), 0);
  for (const Layer &layer : graph.layers)
    for (const LayerInput &in : layer.inputs)
      if (in.producer >= 0)
        ++readers[in.producer];
  for (Layer &layer : graph.layers)
    for (LayerInput &in : layer.inputs)
      if (in.producer >= 0)
        in.producerReaders = readers[in.producer];
  // Each layer's types (HDNumerics.h); a layer that computes or writes
  // another type than f32 costs differently from one that does not, so
  // its signature says so (the model's hash, its network, does not).
  size_t index = 0;
  Precision gradientType = gradientSyncPrecision(module);
  graph.precision = modulePrecision(module);
  (void)walkNumerics(
      func.getBody().front(),
      [&](LayerOpInterface op,
          const std::vector<Precision> &inputs) -> FailureOr<Precision> {
        Layer &layer = graph.layers[index++];
        Precision compute = layerComputeType(op).value_or(Precision::F32);
        layer.numerics = layerNumerics(layer.kind, inputs, compute);
        layer.gradientType = gradientType;
        for (size_t i = 0; i < inputs.size(); ++i)
          layer.inputs[i].type = inputs[i];
        if (!(layer.numerics == LayerNumerics{}))
          layer.signature += llvm::formatv(
              " numerics={0}/{1}", precisionTypeName(layer.numerics.compute),
              precisionTypeName(layer.numerics.output));
        return compute;
      });
  graph.modelHash = llvm::formatv("{0:x-16}", hash).str();
  if (!graph.layers.empty())
    graph.batch = graph.layers.front().shape.front();
  return result;
}

ParallelConfig toParallelConfig(PConfigAttr attr, size_t rank) {
  ParallelConfig c;
  c.degrees = {attr.getN(), attr.getC()};
  if (rank == 4)
    c.degrees.insert(c.degrees.end(),
                     {attr.getHeightDegree(), attr.getWidthDegree()});
  return c;
}

PConfigAttr toAttr(MLIRContext *context, const ParallelConfig &config) {
  const auto &d = config.degrees;
  if (d.size() == 4)
    return PConfigAttr::get(context, d[0], d[1], d[2], d[3]);
  return PConfigAttr::get(context, d[0], d[1], std::nullopt, std::nullopt);
}

} // namespace hd
