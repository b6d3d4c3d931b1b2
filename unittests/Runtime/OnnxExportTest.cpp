//===- OnnxExportTest.cpp - hdrt's ONNX writer against protobuf -----------===//
//
// What writeModelWithWeights writes must parse with the official API, hold
// the new weights, and equal the original in every other field (including
// unknown ones); onnx::checker must accept an exported repository model.
// Weights the model does not declare so, and files that cannot be
// written, are refused with no file left behind.
//
//===----------------------------------------------------------------------===//

#include "OnnxOracle.h"

#include <onnx/checker.h>

#include <fstream>

using namespace onnxtest;

namespace {

TEST_F(OnnxWeights, WritesIntoAModelWhoseGraphFieldComesTwice) {
  // Protobuf merges the two graph fields: a new initializer goes where the
  // merged graph's initializers end, after those of the second field.
  ModelProto first = makeModel(), second;
  addFloatInitializer(second.mutable_graph(), "late", {2}, {1, 2}, true);
  addInput(second.mutable_graph(), "v", TensorProto::FLOAT, {3});
  std::string bytes = first.SerializeAsString() + second.SerializeAsString();
  hx::Tensor w = weight("w", {4, 3, 3, 3}, 1), v = weight("v", {3}, 2),
             late = weight("late", {2}, 3);
  fs::path out = dir / "out.onnx";
  std::string error;
  ASSERT_TRUE(hx::writeModelWithWeights(bytes.data(), bytes.size(),
                                        {w, late, v}, out.string(), error))
      << error;
  ModelProto merged = parseOfficial(bytes), written = parseOfficial(slurp(out));
  int n = merged.graph().initializer_size();
  ASSERT_EQ(written.graph().initializer_size(), n + 2);
  EXPECT_EQ(written.graph().initializer(n - 1).name(), "late");
  EXPECT_EQ(floatsOfRaw(written.graph().initializer(n - 1).raw_data()),
            late.values);
  EXPECT_EQ(written.graph().initializer(n).name(), "w");
  EXPECT_EQ(written.graph().initializer(n + 1).name(), "v");
  written.mutable_graph()->mutable_initializer()->RemoveLast();
  written.mutable_graph()->mutable_initializer()->RemoveLast();
  *written.mutable_graph()->mutable_initializer(n - 1) =
      merged.graph().initializer(n - 1);
  EXPECT_EQ(written.SerializeAsString(), merged.SerializeAsString());
}

TEST_F(OnnxWeights, ReplacesInitializersAndKeepsEveryOtherByte) {
  ModelProto original = makeModel();
  hx::Tensor b = weight("b", {4}, -3), s = weight("s", {2, 2}, 10);
  ModelProto written = writeAndParse(original, {s, b});

  for (const hx::Tensor *w : {&b, &s}) {
    SCOPED_TRACE(w->name);
    const TensorProto *t = findInitializer(written, w->name);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->data_type(), TensorProto::FLOAT);
    EXPECT_EQ(std::vector<int64_t>(t->dims().begin(), t->dims().end()),
              w->dims);
    EXPECT_EQ(t->float_data_size(), 0);
    EXPECT_EQ(floatsOfRaw(t->raw_data()), w->values);
  }
  // b's fields other than its data (doc_string, unknown fields) stay.
  TensorProto oldB = *findInitializer(original, "b"),
              newB = *findInitializer(written, "b");
  for (TensorProto *t : {&oldB, &newB}) {
    t->clear_dims();
    t->clear_data_type();
    t->clear_raw_data();
  }
  EXPECT_EQ(newB.doc_string(), "the bias");
  EXPECT_EQ(newB.SerializeAsString(), oldB.SerializeAsString());

  // With the two initializers put back, the model is the original.
  for (int i = 0; i < written.graph().initializer_size(); ++i)
    if (written.graph().initializer(i).name() == "b" ||
        written.graph().initializer(i).name() == "s")
      *written.mutable_graph()->mutable_initializer(i) =
          original.graph().initializer(i);
  EXPECT_EQ(written.SerializeAsString(), original.SerializeAsString());
  EXPECT_EQ(written.graph().unknown_fields().field_count(), 4);
  EXPECT_EQ(written.unknown_fields().field_count(), 4);
}

TEST_F(OnnxWeights, AddsAnInitializerForAWeightThatIsAnInput) {
  ModelProto original = makeModel();
  hx::Tensor w = weight("w", {4, 3, 3, 3}, -1);
  // A symbolic or unknown dim takes any size.
  hx::Tensor u = weight("u", {2, 5}, 0);
  hx::Tensor noShape = weight("noshape", {3, 1, 2}, 0);
  ModelProto written = writeAndParse(original, {w, u, noShape});

  int n = original.graph().initializer_size();
  ASSERT_EQ(written.graph().initializer_size(), n + 3);
  const TensorProto &t = written.graph().initializer(n);
  EXPECT_EQ(t.name(), "w");
  EXPECT_EQ(t.data_type(), TensorProto::FLOAT);
  EXPECT_EQ(std::vector<int64_t>(t.dims().begin(), t.dims().end()), w.dims);
  EXPECT_EQ(floatsOfRaw(t.raw_data()), w.values);
  EXPECT_EQ(written.graph().initializer(n + 1).name(), "u");
  EXPECT_EQ(written.graph().initializer(n + 2).name(), "noshape");

  for (int i = 0; i < 3; ++i)
    written.mutable_graph()->mutable_initializer()->RemoveLast();
  EXPECT_EQ(written.SerializeAsString(), original.SerializeAsString());

  // readGraph agrees with what it wrote.
  hx::Graph g = readOk(slurp(dir / "out.onnx"));
  ASSERT_EQ(g.initializers.size(), size_t(n + 3));
  EXPECT_EQ(g.initializers[n].values, w.values);
  EXPECT_EQ(g.initializers[n + 2].dims, noShape.dims);
}

TEST_F(OnnxWeights, ExportsTheDemoModelWithItsWeights) {
  std::string source = slurp(fs::path(HD_SOURCE_DIR) / "models/demo_cnn.onnx");
  hx::Graph g = readOk(source);
  std::vector<hx::Tensor> weights;
  for (const hx::Tensor &in : g.inputs)
    if (in.name != "x")
      weights.push_back(weight(in.name, in.dims, float(weights.size())));
  ModelProto original = parseOfficial(source);
  ModelProto written = writeAndParse(original, weights);

  EXPECT_NO_THROW(::onnx::checker::check_model(written));
  ASSERT_EQ(size_t(written.graph().initializer_size()), weights.size());
  for (size_t i = 0; i < weights.size(); ++i) {
    const TensorProto &t = written.graph().initializer(int(i));
    EXPECT_EQ(t.name(), weights[i].name);
    EXPECT_EQ(floatsOfRaw(t.raw_data()), weights[i].values);
  }
  written.mutable_graph()->clear_initializer();
  EXPECT_EQ(written.SerializeAsString(), original.SerializeAsString());

  // A second export replaces what the first added.
  std::string once = slurp(dir / "out.onnx"), error;
  for (hx::Tensor &w : weights)
    for (float &v : w.values)
      v = -v;
  ASSERT_TRUE(hx::writeModelWithWeights(once.data(), once.size(), weights,
                                        (dir / "twice.onnx").string(), error))
      << error;
  hx::Graph again;
  ASSERT_TRUE(hx::readGraphFile((dir / "twice.onnx").string(), again, error))
      << error;
  ASSERT_EQ(again.initializers.size(), weights.size());
  for (size_t i = 0; i < weights.size(); ++i)
    EXPECT_EQ(again.initializers[i].values, weights[i].values);
}

TEST_F(OnnxWeights, RefusesWeightsTheModelDoesNotDeclareSo) {
  std::string bytes = makeModel().SerializeAsString();
  fs::path out = dir / "out.onnx";
  auto refused = [&](std::vector<hx::Tensor> weights) {
    std::string error;
    EXPECT_FALSE(hx::writeModelWithWeights(bytes.data(), bytes.size(), weights,
                                           out.string(), error));
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(out.string() + ".tmp"));
    return error;
  };
  EXPECT_EQ(refused({weight("nope", {1}, 0)}),
            "cannot export to '" + out.string() +
                "': weight 'nope' is neither an initializer nor an input "
                "of the model's graph");
  EXPECT_NE(refused({weight("shape", {2}, 0)}).find("data type 7, not FLOAT"),
            std::string::npos);
  EXPECT_NE(refused({weight("ids", {3}, 0)}).find("elem type 7, not FLOAT"),
            std::string::npos);
  EXPECT_NE(refused({weight("b", {2, 2}, 0)})
                .find("has dims [2, 2], the "
                      "model's initializer [4]"),
            std::string::npos);
  EXPECT_NE(refused({weight("w", {4, 3, 3, 2}, 0)})
                .find("the model's input [4, 3, 3, 3]"),
            std::string::npos);
  EXPECT_NE(refused({weight("x", {2, 3, 5}, 0)}).find("the model's input"),
            std::string::npos);
  EXPECT_NE(refused({weight("b", {4}, 0), weight("b", {4}, 1)})
                .find("weight 'b' is given twice"),
            std::string::npos);
  hx::Tensor short_ = weight("b", {4}, 0);
  short_.values.pop_back();
  EXPECT_NE(refused({short_}).find("has 3 values for its dims [4]"),
            std::string::npos);
  // A malformed model is refused too, with the reader's message.
  bytes.resize(bytes.size() / 2);
  EXPECT_NE(refused({}).find("malformed ONNX model"), std::string::npos);
}

TEST_F(OnnxWeights, AFailedWriteLeavesNoFile) {
  std::string bytes = makeModel().SerializeAsString(), error;
  std::vector<hx::Tensor> weights = {weight("b", {4}, 1)};

  fs::path missing = dir / "no-such-dir" / "out.onnx";
  EXPECT_FALSE(hx::writeModelWithWeights(bytes.data(), bytes.size(), weights,
                                         missing.string(), error));
  EXPECT_NE(error.find(missing.string() + ".tmp"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(missing.parent_path()));

  // The target is a directory: the rename fails, the temporary goes.
  fs::path isDir = dir / "a-directory";
  fs::create_directories(isDir / "inside");
  error.clear();
  EXPECT_FALSE(hx::writeModelWithWeights(bytes.data(), bytes.size(), weights,
                                         isDir.string(), error));
  EXPECT_NE(error.find("cannot rename"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(isDir.string() + ".tmp"));
  EXPECT_TRUE(fs::exists(isDir / "inside"));

  // An existing file is replaced whole.
  fs::path out = dir / "out.onnx";
  std::ofstream(out) << std::string(100000, 'x');
  ASSERT_TRUE(hx::writeModelWithWeights(bytes.data(), bytes.size(), weights,
                                        out.string(), error))
      << error;
  EXPECT_EQ(readOk(slurp(out)).initializers[0].values, weights[0].values);
}

} // namespace
