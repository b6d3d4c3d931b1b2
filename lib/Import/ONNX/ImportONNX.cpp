//===- ImportONNX.cpp - ONNX graphs to the hd dialect ---------------------===//
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
#include "hd/Dialect/HD/IR/HDOps.h"
#include "hd/Tiling/Window.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <onnx/onnx_pb.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

using namespace mlir;
using namespace hd;

namespace {

/// Dims above this are rejected: they overflow the cost model's byte counts
/// long before they could be real.
constexpr int64_t kMaxDim = int64_t(1) << 31;

using Shape = SmallVector<int64_t, 4>;

/// Attribute values hd's window arithmetic handles without overflow.
bool inRange(int64_t v, int64_t lo) { return v >= lo && v <= kMaxDim; }

std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

//===----------------------------------------------------------------------===//
// Reading attributes and constant tensors
//===----------------------------------------------------------------------===//

const onnx::AttributeProto *findAttr(const onnx::NodeProto &node,
                                     StringRef name) {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

std::optional<int64_t> intAttr(const onnx::NodeProto &node, StringRef name) {
  const auto *a = findAttr(node, name);
  if (!a || a->type() != onnx::AttributeProto::INT)
    return std::nullopt;
  return a->i();
}

std::optional<float> floatAttr(const onnx::NodeProto &node, StringRef name) {
  const auto *a = findAttr(node, name);
  if (!a || a->type() != onnx::AttributeProto::FLOAT)
    return std::nullopt;
  return a->f();
}

std::optional<Shape> intsAttr(const onnx::NodeProto &node, StringRef name) {
  const auto *a = findAttr(node, name);
  if (!a || a->type() != onnx::AttributeProto::INTS)
    return std::nullopt;
  return Shape(a->ints().begin(), a->ints().end());
}

std::string stringAttr(const onnx::NodeProto &node, StringRef name,
                       StringRef dflt) {
  const auto *a = findAttr(node, name);
  if (!a || a->type() != onnx::AttributeProto::STRING)
    return dflt.str();
  return a->s();
}

/// Appends the little-endian `T`s of a raw tensor; false on a ragged size.
template <typename T>
bool appendRaw(const std::string &raw, Shape &out) {
  if (raw.size() % sizeof(T))
    return false;
  for (size_t i = 0; i < raw.size(); i += sizeof(T)) {
    T v;
    std::memcpy(&v, raw.data() + i, sizeof(T));
    out.push_back(v);
  }
  return true;
}

/// Values of an integer tensor (int64 or int32, raw or typed storage).
std::optional<Shape> tensorInts(const onnx::TensorProto &t) {
  Shape out;
  bool is64 = t.data_type() == onnx::TensorProto::INT64;
  if (!is64 && t.data_type() != onnx::TensorProto::INT32)
    return std::nullopt;
  if (t.has_raw_data()) {
    bool ok = is64 ? appendRaw<int64_t>(t.raw_data(), out)
                   : appendRaw<int32_t>(t.raw_data(), out);
    return ok ? std::optional<Shape>(out) : std::nullopt;
  }
  if (is64)
    out.append(t.int64_data().begin(), t.int64_data().end());
  else
    out.append(t.int32_data().begin(), t.int32_data().end());
  return out;
}

/// The single value of a scalar float (or double) tensor.
std::optional<double> tensorScalar(const onnx::TensorProto &t) {
  if (t.data_type() == onnx::TensorProto::FLOAT) {
    if (t.has_raw_data() && t.raw_data().size() == 4) {
      float v;
      std::memcpy(&v, t.raw_data().data(), 4);
      return v;
    }
    if (t.float_data_size() == 1)
      return t.float_data(0);
  }
  if (t.data_type() == onnx::TensorProto::DOUBLE) {
    if (t.has_raw_data() && t.raw_data().size() == 8) {
      double v;
      std::memcpy(&v, t.raw_data().data(), 8);
      return v;
    }
    if (t.double_data_size() == 1)
      return t.double_data(0);
  }
  return std::nullopt;
}

/// The shortest decimal that reads back as the same float: 1e-5f becomes
/// 1e-5, not 9.99999974e-6, so the IR shows what the model's author wrote.
double asDecimal(double f) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.7g", f);
  return std::strtod(buf, nullptr);
}

/// Shape of a declared value; -1 for symbolic or unknown dims.
std::optional<Shape> declaredShape(const onnx::ValueInfoProto &info) {
  if (!info.has_type() || !info.type().has_tensor_type() ||
      !info.type().tensor_type().has_shape())
    return std::nullopt;
  Shape shape;
  for (const auto &d : info.type().tensor_type().shape().dim())
    shape.push_back(d.has_dim_value() && d.dim_value() > 0 ? d.dim_value()
                                                           : -1);
  return shape;
}

//===----------------------------------------------------------------------===//
// The importer
//===----------------------------------------------------------------------===//

/// A zero Pad whose only consumer is a Conv or AveragePool: hd folds it into
/// that layer's padding instead of materializing the padded tensor.
struct PendingPad {
  Value input;
  int64_t top, left, bottom, right;
};

class Importer {
public:
  Importer(const onnx::ModelProto &model, Location fileLoc,
           const ONNXImportOptions &options)
      : model(model), graph(model.graph()), fileLoc(fileLoc),
        options(options), builder(fileLoc.getContext()) {}

  OwningOpRef<ModuleOp> run();

private:
  // Each handler returns an empty string on success and the reason the node
  // is not supported otherwise.
  std::string importNode(const onnx::NodeProto &node, Location loc);
  std::string importConv(const onnx::NodeProto &node, Location loc);
  std::string importPool(const onnx::NodeProto &node, Location loc,
                         PoolKind kind, bool global);
  std::string importGemm(const onnx::NodeProto &node, Location loc);
  std::string importBatchNorm(const onnx::NodeProto &node, Location loc);
  std::string importDropout(const onnx::NodeProto &node, Location loc);
  std::string importFlatten(const onnx::NodeProto &node, Location loc);
  std::string importConcat(const onnx::NodeProto &node, Location loc);
  std::string importAdd(const onnx::NodeProto &node, Location loc);
  std::string importPad(const onnx::NodeProto &node);

  /// The activation named `name`, or a reason why there is none.
  FailureOr<Value> activation(const onnx::NodeProto &node, unsigned index,
                              std::string &why);
  /// Static shape of the parameter `name` (a graph input or initializer).
  std::optional<Shape> parameterShape(StringRef name) const;
  const onnx::TensorProto *constant(StringRef name) const {
    auto it = constants.find(name);
    return it == constants.end() ? nullptr : it->second;
  }
  /// Sets `failure` and returns false when the node's extra outputs are used.
  std::string checkUnusedOutputs(const onnx::NodeProto &node) const;
  static Shape shapeOf(Value v) {
    return Shape(cast<RankedTensorType>(v.getType()).getShape());
  }
  RankedTensorType tensorType(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  }
  void define(const onnx::NodeProto &node, Value v) {
    values[node.output(0)] = v;
  }

  const onnx::ModelProto &model;
  const onnx::GraphProto &graph;
  Location fileLoc;
  const ONNXImportOptions &options;
  OpBuilder builder;

  llvm::StringMap<Value> values;
  llvm::StringMap<const onnx::TensorProto *> constants;
  llvm::StringMap<Shape> parameterShapes;
  llvm::StringMap<PendingPad> pendingPads;
  llvm::StringMap<unsigned> useCounts;
  /// Outputs of nodes that failed: their consumers stay silent, so each
  /// problem is reported once, at its source.
  llvm::StringSet<> poisoned;
};

} // namespace

FailureOr<Value> Importer::activation(const onnx::NodeProto &node,
                                      unsigned index, std::string &why) {
  if ((int)index >= node.input_size() || node.input(index).empty()) {
    why = llvm::formatv("expects an input #{0}", index).str();
    return failure();
  }
  const std::string &name = node.input(index);
  auto it = values.find(name);
  if (it != values.end())
    return it->second;
  if (poisoned.contains(name)) {
    why.clear(); // Already reported at the producer.
    return failure();
  }
  if (pendingPads.count(name))
    why = "consumes a Pad; hd folds a Pad only into a Conv or AveragePool";
  else if (parameterShapes.count(name) || constants.count(name))
    why = llvm::formatv("input '{0}' is a parameter or constant, where hd "
                        "needs an activation",
                        name)
              .str();
  else
    why = llvm::formatv("input '{0}' is not produced by any node", name).str();
  return failure();
}

std::optional<Shape> Importer::parameterShape(StringRef name) const {
  auto it = parameterShapes.find(name);
  if (it == parameterShapes.end())
    return std::nullopt;
  if (llvm::any_of(it->second,
                   [](int64_t d) { return d < 1 || d > kMaxDim; }))
    return std::nullopt;
  return it->second;
}

std::string Importer::checkUnusedOutputs(const onnx::NodeProto &node) const {
  for (int i = 1; i < node.output_size(); ++i)
    if (!node.output(i).empty() && useCounts.lookup(node.output(i)))
      return llvm::formatv("its output #{0} ('{1}') is used, and hd "
                           "supports only the first output",
                           i, node.output(i))
          .str();
  return "";
}

std::string Importer::importConv(const onnx::NodeProto &node, Location loc) {
  std::string why;
  // A folded Pad supplies the real input and extra padding.
  std::optional<PendingPad> pad;
  if (node.input_size() > 0 && pendingPads.count(node.input(0)))
    pad = pendingPads.lookup(node.input(0));
  Value x;
  if (pad) {
    x = pad->input;
  } else {
    auto a = activation(node, 0, why);
    if (failed(a))
      return why;
    x = *a;
  }
  Shape in = shapeOf(x);
  if (in.size() != 4)
    return llvm::formatv("only 2-D convolutions are supported; the input is "
                         "{0}-D",
                         in.size());
  if (node.input_size() < 2)
    return "has no weight input";
  std::optional<Shape> weight = parameterShape(node.input(1));
  if (!weight || weight->size() != 4)
    return llvm::formatv("weight '{0}' must be a parameter with a static "
                         "K x C/groups x kH x kW shape",
                         node.input(1));
  int64_t groups = intAttr(node, "group").value_or(1);
  if (groups < 1 || in[1] % groups || (*weight)[1] * groups != in[1])
    return llvm::formatv("weight shape {0} with group={1} does not fit {2} "
                         "input channels",
                         shapeStr(*weight), groups, in[1]);
  bool bias = node.input_size() > 2 && !node.input(2).empty();
  if (bias) {
    std::optional<Shape> b = parameterShape(node.input(2));
    if (!b || b->size() != 1 || (*b)[0] != (*weight)[0])
      return llvm::formatv("bias '{0}' must be a parameter of shape {1}",
                           node.input(2), (*weight)[0]);
  }
  Shape kernel = intsAttr(node, "kernel_shape")
                     .value_or(Shape{(*weight)[2], (*weight)[3]});
  Shape stride = intsAttr(node, "strides").value_or(Shape{1, 1});
  Shape dilation = intsAttr(node, "dilations").value_or(Shape{1, 1});
  Shape pads = intsAttr(node, "pads").value_or(Shape{0, 0, 0, 0});
  if (kernel.size() != 2 || kernel[0] != (*weight)[2] ||
      kernel[1] != (*weight)[3])
    return "kernel_shape does not match the weight's spatial dims";
  if (stride.size() != 2 || dilation.size() != 2 || pads.size() != 4)
    return "strides, dilations and pads must have 2, 2 and 4 values";
  std::string autoPad = stringAttr(node, "auto_pad", "NOTSET");
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (unsigned i = 0; i < 2; ++i) {
      Window w{kernel[i], stride[i], 0, 0, dilation[i], false};
      if (!inRange(w.stride, 1) || !inRange(w.dilation, 1))
        return "strides and dilations must be in [1, 2^31]";
      setSamePadding(w, in[2 + i], autoPad == "SAME_UPPER");
      pads[i] = w.padLo;
      pads[i + 2] = w.padHi;
    }
  } else if (autoPad == "VALID") {
    pads = {0, 0, 0, 0};
  } else if (autoPad != "NOTSET") {
    return llvm::formatv("auto_pad '{0}' is not supported", autoPad);
  }
  for (unsigned i = 0; i < 2; ++i)
    if (!inRange(kernel[i], 1) || !inRange(stride[i], 1) ||
        !inRange(dilation[i], 1) || !inRange(pads[i], 0) ||
        !inRange(pads[i + 2], 0))
      return "kernel, strides and dilations must be in [1, 2^31] and pads "
             "in [0, 2^31]";
  if (pad) { // Both summands are at most 2^31: no overflow.
    pads[0] += pad->top;
    pads[1] += pad->left;
    pads[2] += pad->bottom;
    pads[3] += pad->right;
  }
  Shape out = {in[0], (*weight)[0], 0, 0};
  for (unsigned i = 0; i < 2; ++i) {
    Window w{kernel[i], stride[i], pads[i], pads[i + 2], dilation[i], false};
    out[2 + i] = w.outputSize(in[2 + i]);
    if (out[2 + i] < 1)
      return llvm::formatv("the kernel does not fit the padded input {0}",
                           shapeStr(in));
  }
  define(node, Conv2dOp::create(builder, loc, tensorType(out), x,
                                builder.getI64IntegerAttr((*weight)[0]),
                                builder.getDenseI64ArrayAttr(kernel),
                                builder.getDenseI64ArrayAttr(stride),
                                builder.getDenseI64ArrayAttr(pads),
                                builder.getDenseI64ArrayAttr(dilation),
                                builder.getI64IntegerAttr(groups),
                                builder.getBoolAttr(bias),
                                /*parallel=*/nullptr));
  return "";
}

std::string Importer::importPool(const onnx::NodeProto &node, Location loc,
                                 PoolKind kind, bool global) {
  std::string why;
  if (std::string u = checkUnusedOutputs(node); !u.empty())
    return u;
  // Attributes first: they are wrong whatever the input, so they are
  // reported even when the input comes from a node that failed.
  Shape dilations = intsAttr(node, "dilations").value_or(Shape{1, 1});
  if (llvm::any_of(dilations, [](int64_t d) { return d != 1; }))
    return llvm::formatv("attribute dilations=[{0}] is not supported "
                         "(only 1)",
                         llvm::make_range(dilations.begin(), dilations.end()));
  if (intAttr(node, "storage_order").value_or(0) != 0)
    return "attribute storage_order=1 is not supported";
  std::optional<PendingPad> pad;
  if (node.input_size() > 0 && pendingPads.count(node.input(0))) {
    if (kind != PoolKind::Avg || global)
      return "consumes a Pad; zero padding is not max pooling's padding";
    pad = pendingPads.lookup(node.input(0));
  }
  Value x;
  if (pad) {
    x = pad->input;
  } else {
    auto a = activation(node, 0, why);
    if (failed(a))
      return why;
    x = *a;
  }
  Shape in = shapeOf(x);
  if (in.size() != 4)
    return llvm::formatv("only 2-D pooling is supported; the input is {0}-D",
                         in.size());
  Shape kernel, stride{1, 1}, pads{0, 0, 0, 0};
  bool ceil = false, includePad = false;
  if (global) {
    kernel = {in[2], in[3]};
  } else {
    std::optional<Shape> k = intsAttr(node, "kernel_shape");
    if (!k || k->size() != 2)
      return "kernel_shape must have 2 values";
    kernel = *k;
    stride = intsAttr(node, "strides").value_or(Shape{1, 1});
    pads = intsAttr(node, "pads").value_or(Shape{0, 0, 0, 0});
    if (stride.size() != 2 || pads.size() != 4)
      return "strides and pads must have 2 and 4 values";
    ceil = intAttr(node, "ceil_mode").value_or(0) != 0;
    includePad = intAttr(node, "count_include_pad").value_or(0) != 0;
    std::string autoPad = stringAttr(node, "auto_pad", "NOTSET");
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      for (unsigned i = 0; i < 2; ++i) {
        Window w{kernel[i], stride[i], 0, 0, 1, false};
        if (!inRange(w.stride, 1) || !inRange(w.kernel, 1))
          return "kernel_shape and strides must be in [1, 2^31]";
        setSamePadding(w, in[2 + i], autoPad == "SAME_UPPER");
        pads[i] = w.padLo;
        pads[i + 2] = w.padHi;
      }
    } else if (autoPad == "VALID") {
      pads = {0, 0, 0, 0};
    } else if (autoPad != "NOTSET") {
      return llvm::formatv("auto_pad '{0}' is not supported", autoPad);
    }
  }
  if (llvm::any_of(pads, [](int64_t p) { return !inRange(p, 0); }))
    return "pads must be in [0, 2^31]";
  if (pad) {
    if (llvm::any_of(pads, [](int64_t p) { return p != 0; }) && !includePad)
      return "a folded Pad needs count_include_pad when the pool pads too";
    pads[0] += pad->top;
    pads[1] += pad->left;
    pads[2] += pad->bottom;
    pads[3] += pad->right;
    includePad = true;
  }
  Shape out = {in[0], in[1], 0, 0};
  for (unsigned i = 0; i < 2; ++i) {
    if (!inRange(kernel[i], 1) || !inRange(stride[i], 1) ||
        !inRange(pads[i], 0) || !inRange(pads[i + 2], 0))
      return "kernel_shape and strides must be in [1, 2^31] and pads in "
             "[0, 2^31]";
    if (pads[i] >= kernel[i] || pads[i + 2] >= kernel[i])
      return "pads must be smaller than the kernel";
    Window w{kernel[i], stride[i], pads[i], pads[i + 2], 1, ceil};
    out[2 + i] = w.outputSize(in[2 + i]);
    if (out[2 + i] < 1)
      return llvm::formatv("the kernel does not fit the padded input {0}",
                           shapeStr(in));
  }
  define(node, Pool2dOp::create(builder, loc, tensorType(out), x,
                                PoolKindAttr::get(builder.getContext(), kind),
                                builder.getDenseI64ArrayAttr(kernel),
                                builder.getDenseI64ArrayAttr(stride),
                                builder.getDenseI64ArrayAttr(pads),
                                builder.getBoolAttr(ceil),
                                builder.getBoolAttr(includePad),
                                global ? builder.getUnitAttr() : nullptr,
                                /*parallel=*/nullptr));
  return "";
}

std::string Importer::importGemm(const onnx::NodeProto &node, Location loc) {
  if (intAttr(node, "transA").value_or(0) != 0)
    return "attribute transA=1 is not supported";
  if (floatAttr(node, "alpha").value_or(1.0f) != 1.0f ||
      floatAttr(node, "beta").value_or(1.0f) != 1.0f)
    return "attributes alpha and beta must be 1";
  std::string why;
  auto x = activation(node, 0, why);
  if (failed(x))
    return why;
  Shape in = shapeOf(*x);
  if (in.size() != 2)
    return llvm::formatv("input A must be 2-D (N x F); it is {0}-D",
                         in.size());
  if (node.input_size() < 2)
    return "has no weight input";
  std::optional<Shape> w = parameterShape(node.input(1));
  if (!w || w->size() != 2)
    return llvm::formatv("weight '{0}' must be a 2-D parameter",
                         node.input(1));
  bool transB = intAttr(node, "transB").value_or(0) != 0;
  int64_t features = transB ? (*w)[1] : (*w)[0];
  int64_t outFeatures = transB ? (*w)[0] : (*w)[1];
  if (features != in[1])
    return llvm::formatv("weight shape {0} does not fit {1} input features",
                         shapeStr(*w), in[1]);
  bool bias = node.input_size() > 2 && !node.input(2).empty();
  if (bias) {
    std::optional<Shape> b = parameterShape(node.input(2));
    bool perOutput = b && ((b->size() == 1 && (*b)[0] == outFeatures) ||
                           (b->size() == 2 && (*b)[0] == 1 &&
                            (*b)[1] == outFeatures));
    if (!perOutput)
      return llvm::formatv("bias C must be a parameter of shape {0} or "
                           "1x{0}",
                           outFeatures);
  }
  define(node, LinearOp::create(builder, loc,
                                tensorType({in[0], outFeatures}), *x,
                                builder.getI64IntegerAttr(outFeatures),
                                builder.getBoolAttr(bias),
                                /*parallel=*/nullptr));
  return "";
}

std::string Importer::importBatchNorm(const onnx::NodeProto &node,
                                      Location loc) {
  std::string why;
  if (std::string u = checkUnusedOutputs(node); !u.empty())
    return u;
  auto x = activation(node, 0, why);
  if (failed(x))
    return why;
  Shape in = shapeOf(*x);
  if (in.size() != 4)
    return llvm::formatv("only 4-D (NxCxHxW) batch norm is supported; the "
                         "input is {0}-D",
                         in.size());
  if (node.input_size() != 5)
    return "expects 5 inputs (X, scale, B, mean, var)";
  for (int i = 1; i < 5; ++i) {
    std::optional<Shape> p = parameterShape(node.input(i));
    if (!p || p->size() != 1 || (*p)[0] != in[1])
      return llvm::formatv("input '{0}' must be a parameter of shape {1}",
                           node.input(i), in[1]);
  }
  double eps = asDecimal(floatAttr(node, "epsilon").value_or(1e-5f));
  double momentum = asDecimal(floatAttr(node, "momentum").value_or(0.9f));
  if (!(eps > 0) || !(momentum >= 0 && momentum <= 1))
    return "epsilon must be > 0 and momentum in [0, 1]";
  define(node, BatchNormOp::create(builder, loc, *x,
                                   builder.getF64FloatAttr(eps),
                                   builder.getF64FloatAttr(momentum),
                                   /*parallel=*/nullptr));
  return "";
}

std::string Importer::importDropout(const onnx::NodeProto &node,
                                    Location loc) {
  std::string why;
  if (std::string u = checkUnusedOutputs(node); !u.empty())
    return u;
  auto x = activation(node, 0, why);
  if (failed(x))
    return why;
  size_t rank = shapeOf(*x).size();
  if (rank != 2 && rank != 4)
    return llvm::formatv("input must be 2-D or 4-D; it is {0}-D", rank);
  double ratio = asDecimal(floatAttr(node, "ratio").value_or(0.5f));
  if (node.input_size() > 1 && !node.input(1).empty()) {
    const onnx::TensorProto *t = constant(node.input(1));
    std::optional<double> r = t ? tensorScalar(*t) : std::nullopt;
    if (!r)
      return "input ratio must be a constant scalar";
    ratio = asDecimal(*r);
  }
  if (!(ratio >= 0 && ratio < 1))
    return llvm::formatv("ratio {0} must be in [0, 1)", ratio);
  define(node, DropoutOp::create(builder, loc, *x,
                                 builder.getF64FloatAttr(ratio),
                                 /*parallel=*/nullptr));
  return "";
}

std::string Importer::importFlatten(const onnx::NodeProto &node,
                                    Location loc) {
  std::string why;
  auto x = activation(node, 0, why);
  if (failed(x))
    return why;
  Shape in = shapeOf(*x);
  int64_t axis = intAttr(node, "axis").value_or(1);
  if (axis < 0)
    axis += in.size();
  if (axis != 1)
    return llvm::formatv("attribute axis={0} is not supported (only 1)",
                         intAttr(node, "axis").value_or(1));
  if (in.size() == 2) { // Already N x F.
    define(node, *x);
    return "";
  }
  if (in.size() != 4)
    return llvm::formatv("input must be 2-D or 4-D; it is {0}-D", in.size());
  // Each dim is at most 2^31; check the product before forming it.
  __int128 features = __int128(in[1]) * in[2] * in[3];
  if (features * in[0] > (__int128(1) << 40))
    return "the flattened tensor has more than 2^40 elements";
  define(node, FlattenOp::create(builder, loc,
                                 tensorType({in[0], int64_t(features)}), *x,
                                 /*parallel=*/nullptr));
  return "";
}

std::string Importer::importConcat(const onnx::NodeProto &node,
                                   Location loc) {
  std::string why;
  int64_t rawAxis = intAttr(node, "axis").value_or(1);
  if (rawAxis != 1 && rawAxis >= 0)
    return llvm::formatv("attribute axis={0} is not supported (only the "
                         "channel axis 1)",
                         rawAxis);
  SmallVector<Value> inputs;
  for (int i = 0; i < node.input_size(); ++i) {
    auto x = activation(node, i, why);
    if (failed(x))
      return why;
    inputs.push_back(*x);
  }
  if (inputs.empty())
    return "has no inputs";
  Shape out = shapeOf(inputs[0]);
  int64_t axis = intAttr(node, "axis").value_or(1);
  if (axis < 0)
    axis += out.size();
  if (axis != 1)
    return llvm::formatv("attribute axis={0} is not supported (only the "
                         "channel axis 1)",
                         intAttr(node, "axis").value_or(1));
  if (out.size() != 2 && out.size() != 4)
    return llvm::formatv("inputs must be 2-D or 4-D; they are {0}-D",
                         out.size());
  out[1] = 0;
  for (Value v : inputs) {
    Shape s = shapeOf(v);
    if (s.size() != out.size())
      return "inputs have different ranks";
    for (unsigned d = 0; d < s.size(); ++d)
      if (d != 1 && s[d] != out[d])
        return llvm::formatv("input shapes {0} and {1} differ outside the "
                             "channel axis",
                             shapeStr(shapeOf(inputs[0])), shapeStr(s));
    out[1] += s[1];
  }
  define(node, ConcatOp::create(builder, loc, tensorType(out), inputs,
                                /*parallel=*/nullptr));
  return "";
}

std::string Importer::importAdd(const onnx::NodeProto &node, Location loc) {
  std::string why;
  if (node.input_size() != 2)
    return "expects 2 inputs";
  auto a = activation(node, 0, why);
  if (failed(a))
    return why;
  auto b = activation(node, 1, why);
  if (failed(b))
    return why;
  if (a->getType() != b->getType())
    return llvm::formatv("inputs of shapes {0} and {1}: broadcasting is not "
                         "supported",
                         shapeStr(shapeOf(*a)), shapeStr(shapeOf(*b)));
  size_t rank = shapeOf(*a).size();
  if (rank != 2 && rank != 4)
    return llvm::formatv("inputs must be 2-D or 4-D; they are {0}-D", rank);
  define(node, AddOp::create(builder, loc, *a, *b, /*parallel=*/nullptr));
  return "";
}

std::string Importer::importPad(const onnx::NodeProto &node) {
  // Attributes first: they are wrong whatever the input.
  if (stringAttr(node, "mode", "constant") != "constant")
    return llvm::formatv("mode '{0}' is not supported (only constant)",
                         stringAttr(node, "mode", "constant"));
  if (floatAttr(node, "value").value_or(0.0f) != 0.0f)
    return "only zero padding is supported (attribute value)";
  if (node.input_size() > 3 && !node.input(3).empty())
    return "input axes is not supported (pads must cover all 4 dims)";
  std::string why;
  auto x = activation(node, 0, why);
  if (failed(x))
    return why;
  std::optional<Shape> pads = intsAttr(node, "pads");
  if (node.input_size() > 1 && !node.input(1).empty()) {
    const onnx::TensorProto *t = constant(node.input(1));
    pads = t ? tensorInts(*t) : std::nullopt;
    if (!pads)
      return "input pads must be a constant";
  }
  if (node.input_size() > 2 && !node.input(2).empty()) {
    const onnx::TensorProto *t = constant(node.input(2));
    std::optional<double> v = t ? tensorScalar(*t) : std::nullopt;
    if (!v || *v != 0.0)
      return "only zero padding is supported";
  }
  Shape in = shapeOf(*x);
  if (in.size() != 4 || !pads || pads->size() != 8)
    return "only padding of a 4-D input (8 pad values) is supported";
  const Shape &p = *pads;
  if (p[0] || p[1] || p[4] || p[5])
    return "only height/width padding is supported";
  if (llvm::any_of(p, [](int64_t v) { return v < 0; }))
    return "negative pads (cropping) are not supported";
  if (llvm::any_of(p, [](int64_t v) { return !inRange(v, 0); }))
    return "pads must be at most 2^31";
  if (node.output_size() < 1 || useCounts.lookup(node.output(0)) != 1)
    return "a Pad is supported only when exactly one Conv or AveragePool "
           "consumes it";
  pendingPads[node.output(0)] = PendingPad{*x, p[2], p[3], p[6], p[7]};
  return "";
}

/// The types of the attributes hd reads: a present attribute of another
/// type is an error, not a silent default.
static std::string checkAttributeTypes(const onnx::NodeProto &node) {
  using A = onnx::AttributeProto;
  static const std::pair<const char *, A::AttributeType> expected[] = {
      {"alpha", A::FLOAT},       {"beta", A::FLOAT},
      {"epsilon", A::FLOAT},     {"momentum", A::FLOAT},
      {"ratio", A::FLOAT},       {"transA", A::INT},
      {"transB", A::INT},        {"group", A::INT},
      {"axis", A::INT},          {"ceil_mode", A::INT},
      {"count_include_pad", A::INT}, {"storage_order", A::INT},
      {"strides", A::INTS},      {"pads", A::INTS},
      {"dilations", A::INTS},    {"kernel_shape", A::INTS},
      {"auto_pad", A::STRING},   {"mode", A::STRING}};
  for (const auto &a : node.attribute())
    for (const auto &[name, type] : expected)
      if (a.name() == name && a.type() != type)
        return llvm::formatv("attribute {0} has type {1}, expected {2}",
                             name, A::AttributeType_Name(a.type()),
                             A::AttributeType_Name(type));
  // Pad's zero `value` attribute (opset < 11) is a float.
  if (node.op_type() == "Pad")
    for (const auto &a : node.attribute())
      if (a.name() == "value" && a.type() != A::FLOAT)
        return "attribute value must be a float";
  return "";
}

std::string Importer::importNode(const onnx::NodeProto &node, Location loc) {
  if (node.output_size() < 1 || node.output(0).empty())
    return "has no output";
  if (node.op_type() != "Constant")
    if (std::string bad = checkAttributeTypes(node); !bad.empty())
      return bad;
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return llvm::formatv("domain '{0}' is not supported", node.domain());
  const std::string &op = node.op_type();
  if (op == "Constant") {
    const auto *value = findAttr(node, "value");
    if (!value || value->type() != onnx::AttributeProto::TENSOR)
      return "only Constant nodes with a tensor 'value' are supported";
    constants[node.output(0)] = &value->t();
    return "";
  }
  if (op == "Conv")
    return importConv(node, loc);
  if (op == "MaxPool")
    return importPool(node, loc, PoolKind::Max, /*global=*/false);
  if (op == "AveragePool")
    return importPool(node, loc, PoolKind::Avg, /*global=*/false);
  if (op == "GlobalAveragePool")
    return importPool(node, loc, PoolKind::Avg, /*global=*/true);
  if (op == "GlobalMaxPool")
    return importPool(node, loc, PoolKind::Max, /*global=*/true);
  if (op == "Gemm")
    return importGemm(node, loc);
  if (op == "BatchNormalization")
    return importBatchNorm(node, loc);
  if (op == "Dropout")
    return importDropout(node, loc);
  if (op == "Flatten")
    return importFlatten(node, loc);
  if (op == "Concat")
    return importConcat(node, loc);
  if (op == "Add")
    return importAdd(node, loc);
  if (op == "Pad")
    return importPad(node);
  if (op == "Relu") {
    std::string why;
    auto x = activation(node, 0, why);
    if (failed(x))
      return why;
    size_t rank = shapeOf(*x).size();
    if (rank != 2 && rank != 4)
      return llvm::formatv("input must be 2-D or 4-D; it is {0}-D", rank);
    define(node, ReluOp::create(builder, loc, *x, /*parallel=*/nullptr));
    return "";
  }
  if (op == "Identity") {
    std::string why;
    auto x = activation(node, 0, why);
    if (failed(x))
      return why;
    define(node, *x);
    return "";
  }
  return "op type is not supported";
}

OwningOpRef<ModuleOp> Importer::run() {
  auto fail = [&](const Twine &msg) {
    emitError(fileLoc) << msg;
    return OwningOpRef<ModuleOp>();
  };
  if (graph.node_size() == 0)
    return fail("not an ONNX model: it has no graph nodes");
  if (graph.input_size() < 1)
    return fail("the ONNX graph has no inputs");
  if (graph.output_size() != 1)
    return fail(llvm::formatv("the ONNX graph has {0} outputs; hd imports "
                              "graphs with exactly one output",
                              graph.output_size()));
  // Parameters: initializers and every graph input but the first (the
  // images). Their shapes come from the graph, since weights are optional.
  for (const auto &init : graph.initializer()) {
    constants[init.name()] = &init;
    parameterShapes[init.name()] = Shape(init.dims().begin(),
                                         init.dims().end());
  }
  for (int i = 1; i < graph.input_size(); ++i)
    if (auto s = declaredShape(graph.input(i)))
      parameterShapes[graph.input(i).name()] = *s;
  for (const auto &node : graph.node())
    for (const auto &in : node.input())
      ++useCounts[in];

  // The data: N x C x H x W images (or N x F features), f32, the batch
  // chosen here.
  const onnx::ValueInfoProto &input = graph.input(0);
  std::optional<Shape> inShape = declaredShape(input);
  if (!inShape || (inShape->size() != 4 && inShape->size() != 2))
    return fail(llvm::formatv("input '{0}' must be a 4-D N x C x H x W (or "
                              "2-D N x F) tensor with a declared shape",
                              input.name()));
  if (input.type().tensor_type().elem_type() != onnx::TensorProto::FLOAT)
    return fail(llvm::formatv("input '{0}' must be float32", input.name()));
  for (unsigned d = 1; d < inShape->size(); ++d)
    if ((*inShape)[d] < 1 || (*inShape)[d] > kMaxDim)
      return fail(llvm::formatv("input '{0}' dim {1} must be static and at "
                                "most {2}",
                                input.name(), d, kMaxDim));
  int64_t batch = (*inShape)[0];
  if (options.batchSize > kMaxDim)
    return fail(llvm::formatv("--batch-size={0} is above the limit of {1}",
                              options.batchSize, kMaxDim));
  if (options.batchSize > 0) {
    if (batch > 0 && batch != options.batchSize)
      return fail(llvm::formatv("the model has a fixed batch of {0}; "
                                "--batch-size={1} conflicts with it",
                                batch, options.batchSize));
    batch = options.batchSize;
  } else if (batch < 1) {
    return fail(llvm::formatv("the batch dim of input '{0}' is dynamic: "
                              "give --batch-size=N",
                              input.name()));
  }
  (*inShape)[0] = batch;

  // The IR names the model, not the path it was read from, so an import
  // does not depend on the directory it ran in.
  Location modelLoc = NameLoc::get(builder.getStringAttr(options.modelName));
  OwningOpRef<ModuleOp> module = ModuleOp::create(modelLoc);
  (*module)->setAttr(HDDialect::getModelAttrName(),
                     builder.getStringAttr(options.modelName));
  builder.setInsertionPointToEnd(module->getBody());

  Type images = tensorType(*inShape);
  Type labels = RankedTensorType::get({batch}, builder.getI32Type());
  Type loss = RankedTensorType::get({}, builder.getF32Type());
  SmallVector<Type> argTypes{images};
  SmallVector<Location> argLocs{NameLoc::get(builder.getStringAttr(
      input.name().empty() ? "input" : input.name()))};
  if (options.appendLoss) {
    argTypes.push_back(labels);
    argLocs.push_back(NameLoc::get(builder.getStringAttr("labels")));
  }
  auto func = func::FuncOp::create(builder, modelLoc, options.modelName,
                                   builder.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  for (auto [arg, loc] : llvm::zip(body->getArguments(), argLocs))
    arg.setLoc(loc);
  builder.setInsertionPointToStart(body);
  values[input.name()] = body->getArgument(0);

  // Walk the (topologically sorted) nodes; collect every failure.
  std::vector<std::string> problems;
  for (const auto &[index, node] : llvm::enumerate(graph.node())) {
    std::string name = node.name().empty()
                           ? llvm::formatv("{0}_{1}", node.op_type(), index)
                                 .str()
                           : node.name();
    Location loc = NameLoc::get(builder.getStringAttr(name));
    std::string why = importNode(node, loc);
    if (!why.empty())
      problems.push_back(llvm::formatv("  node '{0}' ({1}): {2}", name,
                                       node.op_type(), why));
    bool defined = node.output_size() > 0 &&
                   (values.count(node.output(0)) ||
                    constants.count(node.output(0)) ||
                    pendingPads.count(node.output(0)));
    if (!defined)
      for (const auto &out : node.output())
        poisoned.insert(out);
  }
  if (!problems.empty()) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    os << problems.size() << " ONNX node" << (problems.size() > 1 ? "s" : "")
       << " cannot be imported:";
    for (const auto &p : problems)
      os << "\n" << p;
    return fail(msg);
  }

  // The graph's output: logits for the loss, or the result itself.
  const onnx::ValueInfoProto &output = graph.output(0);
  auto it = values.find(output.name());
  if (it == values.end())
    return fail(llvm::formatv("graph output '{0}' is not produced by an "
                              "imported layer",
                              output.name()));
  Value result = it->second;
  Shape outShape = shapeOf(result);
  if (std::optional<Shape> declared = declaredShape(output)) {
    bool agrees = declared->size() == outShape.size();
    for (unsigned d = 1; agrees && d < outShape.size(); ++d)
      agrees = (*declared)[d] < 0 || (*declared)[d] == outShape[d];
    if (agrees && (*declared)[0] > 0)
      agrees = (*declared)[0] == outShape[0];
    if (!agrees)
      return fail(llvm::formatv("hd computes shape {0} for output '{1}', "
                                "but the model declares {2}",
                                shapeStr(outShape), output.name(),
                                shapeStr(*declared)));
  }
  if (options.appendLoss) {
    if (outShape.size() != 2)
      return fail(llvm::formatv("output '{0}' has shape {1}; the loss needs "
                                "N x classes logits (use --no-loss to "
                                "import an inference graph)",
                                output.name(), shapeStr(outShape)));
    result = SoftmaxCrossEntropyOp::create(
        builder, NameLoc::get(builder.getStringAttr("loss")), loss, result,
        body->getArgument(1), /*parallel=*/nullptr);
  }
  func::ReturnOp::create(builder, modelLoc, result);
  func.setFunctionType(
      builder.getFunctionType(argTypes, TypeRange{result.getType()}));

  // The verifier reports its own errors above this one.
  if (failed(verify(*module)))
    return fail("the imported model is not a valid hd program");
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
  return Importer(model, fileLoc, options).run();
}
