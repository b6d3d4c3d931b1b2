//===- Attributes.cpp - reading ONNX attributes and constants -------------===//
//
// Constant tensors arrive in raw little-endian bytes or in typed repeated
// fields, depending on the exporter; both are read here, once, so a pattern
// never needs to know which.
//
//===----------------------------------------------------------------------===//

#include "Attributes.h"
#include "ImportContext.h"

#include "hd/Tiling/Window.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

using namespace mlir;

namespace hd::onnx_import {

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
static bool appendRaw(const std::string &raw, Shape &out) {
  if (raw.size() % sizeof(T))
    return false;
  for (size_t i = 0; i < raw.size(); i += sizeof(T)) {
    T v;
    std::memcpy(&v, raw.data() + i, sizeof(T));
    out.push_back(v);
  }
  return true;
}

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

double asDecimal(double f) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.7g", f);
  return std::strtod(buf, nullptr);
}

LogicalResult checkAttributeTypes(const onnx::NodeProto &node,
                                  ImportContext &ctx) {
  using A = onnx::AttributeProto;
  // Every attribute name any pattern reads, with the one type it reads.
  static const std::pair<const char *, A::AttributeType> expected[] = {
      {"alpha", A::FLOAT},
      {"beta", A::FLOAT},
      {"epsilon", A::FLOAT},
      {"momentum", A::FLOAT},
      {"ratio", A::FLOAT},
      {"min", A::FLOAT},
      {"max", A::FLOAT},
      {"transA", A::INT},
      {"transB", A::INT},
      {"group", A::INT},
      {"axis", A::INT},
      {"ceil_mode", A::INT},
      {"count_include_pad", A::INT},
      {"storage_order", A::INT},
      {"keepdims", A::INT},
      {"axes", A::INTS},
      {"strides", A::INTS},
      {"pads", A::INTS},
      {"dilations", A::INTS},
      {"kernel_shape", A::INTS},
      {"auto_pad", A::STRING},
      {"mode", A::STRING},
      {"approximate", A::STRING},
      {"to", A::INT},
      {"perm", A::INTS},
      {"split", A::INTS},
      {"starts", A::INTS},
      {"ends", A::INTS},
      {"allowzero", A::INT},
      {"start", A::INT},
      {"end", A::INT}};
  for (const auto &a : node.attribute())
    for (const auto &[name, type] : expected)
      if (a.name() == name && a.type() != type)
        return ctx.fail(node) << "attribute " << name << " has type "
                              << A::AttributeType_Name(a.type())
                              << ", expected " << A::AttributeType_Name(type);
  // Pad's zero `value` attribute (opset < 11) is a float.
  if (node.op_type() == "Pad")
    for (const auto &a : node.attribute())
      if (a.name() == "value" && a.type() != A::FLOAT)
        return ctx.fail(node) << "attribute value must be a float";
  return success();
}

LogicalResult applyAutoPad(const onnx::NodeProto &node, ImportContext &ctx,
                           ArrayRef<int64_t> in, ArrayRef<int64_t> kernel,
                           ArrayRef<int64_t> stride, ArrayRef<int64_t> dilation,
                           StringRef rangeError, Shape &pads) {
  std::string autoPad = stringAttr(node, "auto_pad", "NOTSET");
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (unsigned i = 0; i < 2; ++i) {
      Window w{kernel[i], stride[i], 0, 0, dilation[i], false};
      if (!inRange(w.kernel, 1) || !inRange(w.stride, 1) ||
          !inRange(w.dilation, 1))
        return ctx.fail(node) << rangeError;
      setSamePadding(w, in[2 + i], autoPad == "SAME_UPPER");
      pads[i] = w.padLo;
      pads[i + 2] = w.padHi;
    }
  } else if (autoPad == "VALID") {
    pads = {0, 0, 0, 0};
  } else if (autoPad != "NOTSET") {
    return ctx.fail(node) << "auto_pad '" << autoPad << "' is not supported";
  }
  return success();
}

FailureOr<Shape> getReduceAxes(const onnx::NodeProto &node,
                               ImportContext &ctx) {
  // Opset 18 moved the axes from an attribute to a constant input.
  if (node.input_size() > 1 && !node.input(1).empty()) {
    const onnx::TensorProto *t = ctx.lookupConstant(node.input(1));
    std::optional<Shape> axes = t ? tensorInts(*t) : std::nullopt;
    if (!axes)
      return ctx.fail(node) << "input axes must be a constant";
    return *axes;
  }
  return intsAttr(node, "axes").value_or(Shape{});
}

} // namespace hd::onnx_import
