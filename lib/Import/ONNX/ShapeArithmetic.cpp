//===- ShapeArithmetic.cpp - folding what exporters compute from shapes ---===//
//
// PyTorch's exporter writes `x.view(n, g, c // g, h, w)` and `x.chunk(2, 1)`
// as arithmetic on the tensor's runtime shape: Shape, Gather, Div, Unsqueeze,
// Concat, Slice. hd fixes the batch at import, so every such value is known:
// Shape becomes a constant, and each node whose inputs are all integer
// constants is computed here. The patterns that take a shape or slice
// bounds (Reshape, Slice, Split) then read plain constants.
//
// Only small integer tensors (at most 1-D, as shapes are) are folded. The
// fold of each op type is a pattern of the highest benefit, so it sees the
// node before any layer or chain of that op type; a node on anything else
// is not its, and the op type's other patterns (or none) take it.
//
//===----------------------------------------------------------------------===//

#include "Attributes.h"
#include "Patterns.h"

using namespace mlir;

namespace hd::onnx_import {

namespace {

/// A 0-D or 1-D integer tensor.
struct Ints {
  Shape dims;
  Shape values;
};

/// The integer constant `name`, when it is one and at most 1-D.
std::optional<Ints> readInts(ImportContext &ctx, StringRef name) {
  const onnx::TensorProto *t = ctx.lookupConstant(name);
  if (!t || t->dims_size() > 1)
    return std::nullopt;
  std::optional<Shape> values = tensorInts(*t);
  if (!values)
    return std::nullopt;
  Ints ints{Shape(t->dims().begin(), t->dims().end()), *values};
  int64_t count = ints.dims.empty() ? 1 : ints.dims[0];
  if (int64_t(ints.values.size()) != count)
    return std::nullopt;
  return ints;
}

onnx::TensorProto toTensor(const Ints &ints) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : ints.dims)
    t.add_dims(d);
  for (int64_t v : ints.values)
    t.add_int64_data(v);
  return t;
}

Ints vectorOf(Shape values) {
  return {Shape{int64_t(values.size())}, std::move(values)};
}

/// The axes of Unsqueeze/Squeeze: an attribute before opset 13, an input
/// since.
std::optional<Shape> axesOf(const onnx::NodeProto &node, ImportContext &ctx) {
  if (node.input_size() > 1 && !node.input(1).empty()) {
    if (std::optional<Ints> axes = readInts(ctx, node.input(1)))
      return axes->values;
    return std::nullopt;
  }
  return intsAttr(node, "axes");
}

/// Elementwise integer arithmetic, a scalar broadcast against a vector.
FailureOr<Ints> arithmetic(const onnx::NodeProto &node, ImportContext &ctx,
                           const Ints &a, const Ints &b) {
  const std::string &op = node.op_type();
  size_t n = std::max(a.values.size(), b.values.size());
  if ((a.values.size() != n && a.values.size() != 1) ||
      (b.values.size() != n && b.values.size() != 1))
    return ctx.fail(node) << "operands of " << a.values.size() << " and "
                          << b.values.size() << " values do not broadcast";
  // A scalar with a scalar is a scalar; anything with a vector, a vector.
  bool vector = a.dims.size() == 1 || b.dims.size() == 1;
  Ints out{vector ? Shape{int64_t(n)} : Shape{}, {}};
  for (size_t i = 0; i < n; ++i) {
    int64_t x = a.values[a.values.size() == 1 ? 0 : i];
    int64_t y = b.values[b.values.size() == 1 ? 0 : i];
    int64_t r;
    if (op == "Div") {
      if (y == 0)
        return ctx.fail(node) << "divides by zero";
      if (y == -1 && x == INT64_MIN)
        return ctx.fail(node) << "overflows 64 bits";
      r = x / y; // ONNX integer division truncates, as C++ does
    } else if (op == "Mul" ? __builtin_mul_overflow(x, y, &r)
               : op == "Add" ? __builtin_add_overflow(x, y, &r)
                             : __builtin_sub_overflow(x, y, &r)) {
      return ctx.fail(node) << "overflows 64 bits";
    }
    out.values.push_back(r);
  }
  return out;
}

/// Gather along axis 0 of a vector.
FailureOr<Ints> gather(const onnx::NodeProto &node, ImportContext &ctx,
                       const Ints &data, const Ints &indices) {
  if (intAttr(node, "axis").value_or(0) != 0 || data.dims.size() != 1)
    return ctx.fail(node) << "hd folds a Gather of shape values only along "
                             "axis 0 of a vector";
  Ints out{indices.dims, {}};
  int64_t size = int64_t(data.values.size());
  for (int64_t i : indices.values) {
    if (i < -size || i >= size)
      return ctx.fail(node) << "index " << i << " is out of range for "
                            << size << " values";
    out.values.push_back(data.values[i < 0 ? i + size : i]);
  }
  return out;
}

/// Slice of a vector: starts, ends and optional axes (only 0) and steps
/// (only 1).
FailureOr<Ints> sliceVector(const onnx::NodeProto &node, ImportContext &ctx,
                            ArrayRef<Ints> in) {
  if (in.size() < 3 || in[0].dims.size() != 1 || in[1].values.size() != 1 ||
      in[2].values.size() != 1 ||
      (in.size() > 3 && in[3].values != Shape{0}) ||
      (in.size() > 4 && in[4].values != Shape{1}))
    return ctx.fail(node) << "hd folds a Slice of shape values only along "
                             "axis 0 with step 1";
  int64_t size = int64_t(in[0].values.size());
  int64_t lo = clampIndex(in[1].values[0], size),
          hi = clampIndex(in[2].values[0], size);
  return vectorOf(Shape(in[0].values.begin() + lo,
                        in[0].values.begin() + std::max(lo, hi)));
}

FailureOr<Ints> foldArithmetic(const onnx::NodeProto &node, ImportContext &ctx,
                               ArrayRef<Ints> in) {
  if (in.size() != 2)
    return ctx.fail(node) << "expects 2 inputs";
  return arithmetic(node, ctx, in[0], in[1]);
}

FailureOr<Ints> foldGather(const onnx::NodeProto &node, ImportContext &ctx,
                           ArrayRef<Ints> in) {
  if (in.size() != 2)
    return ctx.fail(node) << "expects 2 inputs";
  return gather(node, ctx, in[0], in[1]);
}

FailureOr<Ints> foldConcat(const onnx::NodeProto &node, ImportContext &ctx,
                           ArrayRef<Ints> in) {
  Ints out = vectorOf({});
  for (const Ints &i : in) {
    if (i.dims.size() != 1)
      return ctx.fail(node) << "hd folds a Concat of shape values only of "
                               "vectors";
    out.values.append(i.values);
  }
  out.dims[0] = int64_t(out.values.size());
  return out;
}

/// Identity, and a Cast between integer types: the values stay.
FailureOr<Ints> foldCopy(const onnx::NodeProto &, ImportContext &,
                         ArrayRef<Ints> in) {
  return in[0];
}

/// Whether the axes of an Unsqueeze or Squeeze name the one axis a scalar
/// and a 1-value vector differ by.
bool isFirstAxisOnly(const Shape &axes) {
  return axes == Shape{0} || axes == Shape{-1};
}

/// Exporters unsqueeze a scalar dim into a 1-value vector for Concat.
FailureOr<Ints> foldUnsqueeze(const onnx::NodeProto &node, ImportContext &ctx,
                              ArrayRef<Ints> in) {
  std::optional<Shape> axes = axesOf(node, ctx);
  if (!in[0].dims.empty() || !axes || !isFirstAxisOnly(*axes))
    return ctx.fail(node) << "hd folds an Unsqueeze of shape values only "
                             "from a scalar to a 1-value vector";
  return vectorOf(in[0].values);
}

FailureOr<Ints> foldSqueeze(const onnx::NodeProto &node, ImportContext &ctx,
                            ArrayRef<Ints> in) {
  // Without axes, Squeeze drops every dim of 1: a 1-value vector's only one.
  std::optional<Shape> axes = axesOf(node, ctx);
  if (in[0].dims != Shape{1} || (axes && !isFirstAxisOnly(*axes)))
    return ctx.fail(node) << "hd folds a Squeeze of shape values only from a "
                             "1-value vector to a scalar";
  return Ints{Shape{}, in[0].values};
}

/// Computes a node's integer result from its inputs, all integer constants,
/// or reports why hd does not.
using IntsFold = FailureOr<Ints> (*)(const onnx::NodeProto &node,
                                     ImportContext &ctx, ArrayRef<Ints> in);

/// Defines the output of `node` as `fold` computes it when every input is
/// a small integer constant; not the pattern's node otherwise.
PatternResult foldInts(const onnx::NodeProto &node, ImportContext &ctx,
                       IntsFold fold) {
  SmallVector<Ints> in;
  for (int i = 0; i < node.input_size(); ++i) {
    if (node.input(i).empty())
      return PatternResult::NoMatch;
    std::optional<Ints> ints = readInts(ctx, node.input(i));
    if (!ints)
      return PatternResult::NoMatch;
    in.push_back(std::move(*ints));
  }
  // A node without inputs computes nothing from shapes; its layer, if the
  // op type has one, reports it.
  if (in.empty())
    return PatternResult::NoMatch;
  FailureOr<Ints> out = fold(node, ctx, in);
  if (failed(out))
    return PatternResult::Failed;
  ctx.defineConstant(node.output(0), toTensor(*out));
  return PatternResult::Matched;
}

/// The pattern that folds its op type with `fold`.
template <IntsFold fold>
PatternResult foldPattern(const onnx::NodeProto &node, ImportContext &ctx) {
  return foldInts(node, ctx, fold);
}

/// A Cast to an integer type; one to a float type is not shape arithmetic.
PatternResult foldCast(const onnx::NodeProto &node, ImportContext &ctx) {
  int64_t to = intAttr(node, "to").value_or(0);
  if (to != onnx::TensorProto::INT64 && to != onnx::TensorProto::INT32)
    return PatternResult::NoMatch;
  return foldInts(node, ctx, foldCopy);
}

} // namespace

/// Shape of an activation: its dims, the batch as chosen at import.
static LogicalResult importShape(const onnx::NodeProto &node,
                                 ImportContext &ctx) {
  if (node.input_size() > 0 && ctx.lookupChannelsLast(node.input(0)))
    return ctx.fail(node) << "hd folds the Shape of N x C x H x W tensors, "
                               "not of a channels-last one";
  FailureOr<Value> in = ctx.getActivation(node, 0);
  if (failed(in))
    return failure();
  Shape dims = shapeOf(*in);
  int64_t rank = int64_t(dims.size());
  int64_t start = clampIndex(intAttr(node, "start").value_or(0), rank);
  int64_t end = clampIndex(intAttr(node, "end").value_or(rank), rank);
  ctx.defineConstant(node.output(0),
                     toTensor(vectorOf(Shape(dims.begin() + start,
                                             dims.begin() +
                                                 std::max(start, end)))));
  return success();
}

void addShapeArithmeticPatterns(PatternTable &table) {
  for (StringRef opType : {"Add", "Sub", "Mul", "Div"})
    table.add(opType, PatternBenefit::Fold, foldPattern<foldArithmetic>);
  table.add("Gather", PatternBenefit::Fold, foldPattern<foldGather>);
  table.add("Slice", PatternBenefit::Fold, foldPattern<sliceVector>);
  table.add("Concat", PatternBenefit::Fold, foldPattern<foldConcat>);
  table.add("Cast", PatternBenefit::Fold, foldCast);
  table.add("Identity", PatternBenefit::Fold, foldPattern<foldCopy>);
  table.add("Unsqueeze", PatternBenefit::Fold, foldPattern<foldUnsqueeze>);
  table.add("Squeeze", PatternBenefit::Fold, foldPattern<foldSqueeze>);
  table.add("Shape", importShape);
}

} // namespace hd::onnx_import
