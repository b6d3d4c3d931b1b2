//===- OnnxOracle.cpp - protobuf, hdrt_onnx's oracle ----------------------===//
//
// What the ONNX weights tests share (OnnxOracle.h): the oracle's reading of
// a model, the models, and the helpers around them.
//
//===----------------------------------------------------------------------===//

#include "OnnxOracle.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

namespace onnxtest {

std::vector<uint32_t> bitsOf(const std::vector<float> &values) {
  std::vector<uint32_t> bits(values.size());
  if (!values.empty())
    std::memcpy(bits.data(), values.data(), 4 * values.size());
  return bits;
}

std::vector<float> floatsOfRaw(const std::string &raw) {
  std::vector<float> out(raw.size() / 4);
  for (size_t i = 0; i < out.size(); ++i) {
    uint32_t bits = 0;
    for (int b = 0; b < 4; ++b)
      bits |= uint32_t(uint8_t(raw[4 * i + b])) << (8 * b);
    std::memcpy(&out[i], &bits, 4);
  }
  return out;
}

std::string rawOfFloats(const std::vector<float> &values) {
  std::string raw;
  for (uint32_t bits : bitsOf(values))
    for (int b = 0; b < 4; ++b)
      raw.push_back(char(uint8_t(bits >> (8 * b))));
  return raw;
}

hx::Graph expectedGraph(const ModelProto &m) {
  hx::Graph g;
  for (const TensorProto &t : m.graph().initializer()) {
    hx::Tensor e;
    e.name = t.name();
    e.dataType = t.data_type();
    e.dims.assign(t.dims().begin(), t.dims().end());
    e.hasShape = true;
    if (t.data_type() == TensorProto::FLOAT) {
      if (t.has_raw_data()) {
        e.values = floatsOfRaw(t.raw_data());
        e.hasData = true;
      } else if (t.float_data_size() > 0) {
        e.values.assign(t.float_data().begin(), t.float_data().end());
        e.hasData = true;
      }
    }
    g.initializers.push_back(e);
  }
  for (const ValueInfoProto &v : m.graph().input()) {
    hx::Tensor e;
    e.name = v.name();
    if (v.type().has_tensor_type()) {
      const auto &tt = v.type().tensor_type();
      e.dataType = tt.elem_type();
      e.hasShape = tt.has_shape();
      for (const auto &d : tt.shape().dim())
        e.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    }
    g.inputs.push_back(e);
  }
  return g;
}

void expectSameTensor(const hx::Tensor &want, const hx::Tensor &got) {
  SCOPED_TRACE("tensor '" + want.name + "'");
  EXPECT_EQ(want.name, got.name);
  EXPECT_EQ(want.dataType, got.dataType);
  EXPECT_EQ(want.dims, got.dims);
  EXPECT_EQ(want.hasData, got.hasData);
  EXPECT_EQ(want.hasShape, got.hasShape);
  EXPECT_EQ(bitsOf(want.values), bitsOf(got.values)); // NaN payloads too
}

void expectSameGraph(const hx::Graph &want, const hx::Graph &got) {
  ASSERT_EQ(want.initializers.size(), got.initializers.size());
  for (size_t i = 0; i < want.initializers.size(); ++i)
    expectSameTensor(want.initializers[i], got.initializers[i]);
  ASSERT_EQ(want.inputs.size(), got.inputs.size());
  for (size_t i = 0; i < want.inputs.size(); ++i)
    expectSameTensor(want.inputs[i], got.inputs[i]);
}

hx::Graph readOk(const std::string &bytes) {
  hx::Graph g;
  std::string error;
  EXPECT_TRUE(hx::readGraph(bytes.data(), bytes.size(), g, error)) << error;
  return g;
}

std::string readError(const std::string &bytes) {
  hx::Graph g;
  std::string error;
  EXPECT_FALSE(hx::readGraph(bytes.data(), bytes.size(), g, error));
  EXPECT_FALSE(error.empty());
  return error;
}

void addUnknownFields(google::protobuf::Message &m, int first) {
  auto *u = m.GetReflection()->MutableUnknownFields(&m);
  u->AddVarint(first, 0x123456789ull);
  u->AddFixed32(first + 1, 0xdeadbeef);
  u->AddFixed64(first + 2, 0x0123456789abcdefull);
  u->AddLengthDelimited(first + 3, std::string("unknown\0bytes", 13));
}

ValueInfoProto *addInput(GraphProto *g, const std::string &name, int elemType,
                         const std::vector<int64_t> &dims,
                         const std::vector<std::string> &params) {
  ValueInfoProto *v = g->add_input();
  v->set_name(name);
  auto *tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elemType);
  auto *shape = tt->mutable_shape();
  for (size_t i = 0; i < dims.size(); ++i) {
    auto *d = shape->add_dim();
    if (i < params.size() && !params[i].empty())
      d->set_dim_param(params[i]);
    else if (dims[i] >= 0)
      d->set_dim_value(dims[i]);
    // else: a dimension with neither, unknown
  }
  return v;
}

TensorProto *addFloatInitializer(GraphProto *g, const std::string &name,
                                 const std::vector<int64_t> &dims,
                                 const std::vector<float> &values, bool raw) {
  TensorProto *t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(TensorProto::FLOAT);
  for (int64_t d : dims)
    t->add_dims(d);
  if (raw)
    t->set_raw_data(rawOfFloats(values));
  else
    for (float v : values)
      t->add_float_data(v);
  return t;
}

ModelProto makeModel() {
  ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("hd-test");
  m.set_producer_version("1");
  m.set_doc_string("a model for the weight reader's tests");
  m.set_model_version(3);
  for (auto [domain, version] : {std::pair<const char *, int>{"", 13},
                                 {"ai.onnx.ml", 3},
                                 {"com.example.hd", 1}}) {
    auto *op = m.add_opset_import();
    op->set_domain(domain);
    op->set_version(version);
  }
  auto *meta = m.add_metadata_props();
  meta->set_key("trained_by");
  meta->set_value("nobody yet");
  addUnknownFields(m, 1000);

  GraphProto *g = m.mutable_graph();
  g->set_name("g");
  g->set_doc_string("the graph");
  addUnknownFields(*g, 2000);
  addInput(g, "x", TensorProto::FLOAT, {-1, 3, 5, 5}, {"batch"});
  ValueInfoProto *w = addInput(g, "w", TensorProto::FLOAT, {4, 3, 3, 3});
  addUnknownFields(*w, 3000);
  addUnknownFields(*w->mutable_type(), 3100);
  addUnknownFields(*w->mutable_type()->mutable_tensor_type(), 3200);
  addUnknownFields(*w->mutable_type()->mutable_tensor_type()->mutable_shape(),
                   3300);
  w->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_denotation("FILTER_OUT_CHANNEL");
  addInput(g, "b", TensorProto::FLOAT, {4});     // also an initializer
  addInput(g, "u", TensorProto::FLOAT, {2, -1}); // dim 1: neither
  addInput(g, "ids", TensorProto::INT64, {3});
  ValueInfoProto *noShape = g->add_input();
  noShape->set_name("noshape");
  noShape->mutable_type()->mutable_tensor_type()->set_elem_type(
      TensorProto::FLOAT);
  ValueInfoProto *seq = g->add_input();
  seq->set_name("seq");
  seq->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(TensorProto::FLOAT);

  float nan = std::numeric_limits<float>::quiet_NaN();
  TensorProto *b =
      addFloatInitializer(g, "b", {4}, {0.5f, -1.25f, 1e-40f, -0.0f}, true);
  b->set_doc_string("the bias");
  addUnknownFields(*b, 4000);
  addFloatInitializer(g, "s", {2, 2},
                      {nan, std::numeric_limits<float>::infinity(), 3, 4},
                      false);
  TensorProto *shape = g->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(TensorProto::INT64);
  shape->add_dims(2);
  shape->add_int64_data(1);
  shape->add_int64_data(-1);
  addFloatInitializer(g, "empty", {0, 3}, {}, true);
  TensorProto *noData = g->add_initializer();
  noData->set_name("nodata");
  noData->set_data_type(TensorProto::FLOAT);
  noData->add_dims(3);
  addFloatInitializer(g, "scalar", {}, {2.5f}, false);

  auto *conv = g->add_node();
  conv->set_op_type("Conv");
  conv->set_name("conv");
  conv->add_input("x");
  conv->add_input("w");
  conv->add_input("b");
  conv->add_output("y");
  auto *ks = conv->add_attribute();
  ks->set_name("kernel_shape");
  ks->set_type(::onnx::AttributeProto::INTS);
  ks->add_ints(3);
  ks->add_ints(3);
  auto *reshape = g->add_node();
  reshape->set_op_type("Reshape");
  reshape->add_input("y");
  reshape->add_input("shape");
  reshape->add_output("z");
  auto *out = g->add_output();
  out->set_name("z");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
  auto *vi = g->add_value_info();
  vi->set_name("y");
  return m;
}
uint32_t bitsOfFloat(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

std::string wrapGraph(const std::string &graphBytes) {
  return Bytes().bytesField(7, graphBytes).s;
}

ModelProto parseOfficial(const std::string &bytes, bool *ok) {
  ModelProto m;
  bool parsed = m.ParseFromString(bytes);
  if (ok)
    *ok = parsed;
  else
    EXPECT_TRUE(parsed);
  return m;
}

const TensorProto *findInitializer(const ModelProto &m,
                                   const std::string &name) {
  for (const TensorProto &t : m.graph().initializer())
    if (t.name() == name)
      return &t;
  return nullptr;
}

hx::Tensor weight(const std::string &name, std::vector<int64_t> dims,
                  float start) {
  hx::Tensor w;
  w.name = name;
  w.dataType = hx::kFloat;
  w.dims = std::move(dims);
  int64_t n = 1;
  for (int64_t d : w.dims)
    n *= d;
  for (int64_t i = 0; i < n; ++i)
    w.values.push_back(start + 0.25f * float(i));
  return w;
}

std::string slurp(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}
} // namespace onnxtest
