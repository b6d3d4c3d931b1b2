//===- OnnxWeightsTest.cpp - hdrt's ONNX reader against protobuf ----------===//
//
// readGraph must return exactly what the official parse of the same bytes
// holds: models the official API wrote, hand-made bytes it never writes
// (packed dims, unpacked float_data, fields repeated and merged), and every
// .onnx file in the repository.
//
//===----------------------------------------------------------------------===//

#include "OnnxOracle.h"

#include <cmath>

using namespace onnxtest;

namespace {

TEST_F(OnnxWeights, ReadsEveryFieldOfAModelTheOfficialApiWrote) {
  ModelProto m = makeModel();
  hx::Graph g = readOk(m.SerializeAsString());
  expectSameGraph(expectedGraph(m), g);

  // What the oracle says, spelled out, in case it and the reader share a
  // misreading.
  ASSERT_EQ(g.initializers.size(), 6u);
  EXPECT_EQ(g.initializers[0].name, "b");
  EXPECT_EQ(bitsOf(g.initializers[0].values),
            bitsOf({0.5f, -1.25f, 1e-40f, -0.0f}));
  EXPECT_TRUE(std::isnan(g.initializers[1].values[0]));
  EXPECT_EQ(g.initializers[1].dims, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(g.initializers[2].dataType, TensorProto::INT64);
  EXPECT_FALSE(g.initializers[2].hasData);
  EXPECT_TRUE(g.initializers[2].values.empty());
  EXPECT_TRUE(g.initializers[3].hasData); // raw_data of zero bytes
  EXPECT_FALSE(g.initializers[4].hasData);
  EXPECT_EQ(g.initializers[5].values, std::vector<float>{2.5f});
  EXPECT_TRUE(g.initializers[5].dims.empty());
  ASSERT_EQ(g.inputs.size(), 7u);
  EXPECT_EQ(g.inputs[0].dims, (std::vector<int64_t>{-1, 3, 5, 5}));
  EXPECT_EQ(g.inputs[1].dims, (std::vector<int64_t>{4, 3, 3, 3}));
  EXPECT_EQ(g.inputs[3].dims, (std::vector<int64_t>{2, -1}));
  EXPECT_EQ(g.inputs[4].dataType, TensorProto::INT64);
  EXPECT_FALSE(g.inputs[5].hasShape);
  EXPECT_EQ(g.inputs[5].dataType, TensorProto::FLOAT);
  EXPECT_EQ(g.inputs[6].dataType, 0); // a sequence
  EXPECT_FALSE(g.inputs[6].hasShape);
}

TEST_F(OnnxWeights, ReadsPackedAndUnpackedRepeatedFields) {
  // p: packed dims, unpacked float_data; q: unpacked dims, packed
  // float_data; r: dims split between both forms.
  std::string packedDims = Bytes().varint(2).varint(3).s;
  Bytes p;
  p.bytesField(8, "p").varintField(2, 1).bytesField(1, packedDims);
  for (int i = 0; i < 6; ++i)
    p.fixed32Field(4, bitsOfFloat(float(i) - 2.5f));
  Bytes q;
  q.varintField(1, 3).varintField(1, 1).varintField(2, 1);
  q.bytesField(4, rawOfFloats({7, 8, 9})).bytesField(8, "q");
  Bytes r;
  r.bytesField(1, Bytes().varint(1).s).varintField(1, 2).varintField(2, 1);
  r.bytesField(9, rawOfFloats({1, 2})).bytesField(8, "r");
  std::string bytes = wrapGraph(
      Bytes().bytesField(5, p.s).bytesField(5, q.s).bytesField(5, r.s).s);

  ModelProto m = parseOfficial(bytes);
  hx::Graph g = readOk(bytes);
  expectSameGraph(expectedGraph(m), g);
  ASSERT_EQ(g.initializers.size(), 3u);
  EXPECT_EQ(g.initializers[0].dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(g.initializers[0].values,
            (std::vector<float>{-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f}));
  EXPECT_EQ(g.initializers[1].dims, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(g.initializers[1].values, (std::vector<float>{7, 8, 9}));
  EXPECT_EQ(g.initializers[2].dims, (std::vector<int64_t>{1, 2}));
}

TEST_F(OnnxWeights, MergesRepeatedFieldsTheWayProtobufDoes) {
  // Two serialized models concatenated are one model: the graphs merge.
  ModelProto first = makeModel(), second;
  GraphProto *g2 = second.mutable_graph();
  addFloatInitializer(g2, "late", {2}, {1, 2}, true);
  addInput(g2, "late", TensorProto::FLOAT, {2});
  // A singular field twice (the last wins), and a type whose `value` oneof
  // is set to a tensor and then to a sequence.
  std::string tensor = Bytes()
                           .bytesField(8, "first name")
                           .varintField(2, 7)
                           .varintField(1, 2)
                           .bytesField(8, "twice")
                           .varintField(2, 1)
                           .bytesField(9, "12345678")
                           .bytesField(9, rawOfFloats({5, 6}))
                           .s;
  std::string tensorType =
      Bytes()
          .varintField(1, 1)
          .bytesField(2, Bytes().bytesField(1, Bytes().varintField(1, 4).s).s)
          .s;
  std::string type = Bytes()
                         .bytesField(1, tensorType)
                         .bytesField(4, Bytes().s) // sequence_type
                         .s;
  std::string reset = Bytes().bytesField(1, "v").bytesField(2, type).s;
  // A dimension's value then parameter (a oneof: the parameter wins), and
  // the other way round.
  std::string dims =
      Bytes()
          .bytesField(1, Bytes().varintField(1, 5).bytesField(2, "n").s)
          .bytesField(1, Bytes().bytesField(2, "n").varintField(1, 6).s)
          .s;
  std::string oneofDims =
      Bytes()
          .bytesField(1, "d")
          .bytesField(
              2, Bytes()
                     .bytesField(
                         1, Bytes().varintField(1, 1).bytesField(2, dims).s)
                     .s)
          .s;
  // The same type twice: the second's shape dims append to the first's.
  std::string twice = Bytes()
                          .bytesField(1, "t")
                          .bytesField(2, Bytes().bytesField(1, tensorType).s)
                          .bytesField(2, Bytes().bytesField(1, tensorType).s)
                          .s;
  std::string bytes = first.SerializeAsString() + second.SerializeAsString() +
                      wrapGraph(Bytes()
                                    .bytesField(5, tensor)
                                    .bytesField(11, reset)
                                    .bytesField(11, twice)
                                    .bytesField(11, oneofDims)
                                    .s);

  ModelProto m = parseOfficial(bytes);
  hx::Graph g = readOk(bytes);
  expectSameGraph(expectedGraph(m), g);
  ASSERT_EQ(g.initializers.size(), 8u);
  EXPECT_EQ(g.initializers[6].name, "late");
  EXPECT_EQ(g.initializers[7].name, "twice");
  EXPECT_EQ(g.initializers[7].values, (std::vector<float>{5, 6}));
  ASSERT_EQ(g.inputs.size(), 11u);
  EXPECT_EQ(g.inputs[8].dataType, 0);
  EXPECT_EQ(g.inputs[9].dims, (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(g.inputs[10].dims, (std::vector<int64_t>{-1, 6}));
}

TEST_F(OnnxWeights, ReadsEveryOnnxFileInTheRepository) {
  int compared = 0;
  for (const char *sub : {"models", "test"})
    for (const auto &entry :
         fs::recursive_directory_iterator(fs::path(HD_SOURCE_DIR) / sub)) {
      if (entry.path().extension() != ".onnx")
        continue;
      SCOPED_TRACE(entry.path().string());
      std::string bytes = slurp(entry.path());
      bool officialOk;
      ModelProto m = parseOfficial(bytes, &officialOk);
      hx::Graph g;
      std::string error;
      bool ok = hx::readGraphFile(entry.path().string(), g, error);
      if (!officialOk)
        continue; // a file made to be malformed: no crash is all we ask
      ASSERT_TRUE(ok) << error;
      expectSameGraph(expectedGraph(m), g);
      ++compared;
    }
  EXPECT_GT(compared, 20);

  // What the demo model holds (all its weights are graph inputs).
  hx::Graph g;
  std::string error;
  ASSERT_TRUE(hx::readGraphFile(
      (fs::path(HD_SOURCE_DIR) / "models/demo_cnn.onnx").string(), g, error))
      << error;
  EXPECT_TRUE(g.initializers.empty());
  ASSERT_EQ(g.inputs.size(), 26u);
  EXPECT_EQ(g.inputs[0].name, "x");
  EXPECT_EQ(g.inputs[0].dims, (std::vector<int64_t>{-1, 3, 32, 32}));
  EXPECT_EQ(g.inputs[25].name, "b_fc");
  EXPECT_EQ(g.inputs[25].dims, std::vector<int64_t>{10});
}

} // namespace
