//===- OnnxMalformedTest.cpp - malformed ONNX bytes fail cleanly ----------===//
//
// Every prefix of a model, and every byte of it corrupted, either reads as
// the official parser reads it or fails with a message; lengths and
// varints past the end, groups, wrong wire types, external data and FLOAT
// data that does not fit its dims each fail with their own message.
//
//===----------------------------------------------------------------------===//

#include "OnnxOracle.h"

#include <fstream>
#include <functional>
#include <map>

using namespace onnxtest;

namespace {

TEST_F(OnnxWeights, EveryPrefixParsesOrFailsAsTheOfficialParserDoes) {
  std::string whole = makeModel().SerializeAsString();
  int parsed = 0;
  for (size_t n = 0; n <= whole.size(); ++n) {
    SCOPED_TRACE("prefix of " + std::to_string(n) + " bytes");
    std::string prefix = whole.substr(0, n);
    bool officialOk;
    ModelProto m = parseOfficial(prefix, &officialOk);
    hx::Graph g;
    std::string error;
    bool ok = hx::readGraph(prefix.data(), prefix.size(), g, error);
    ASSERT_EQ(ok, officialOk) << error;
    if (ok) {
      expectSameGraph(expectedGraph(m), g);
      ++parsed;
    } else {
      EXPECT_NE(error.find("malformed ONNX model"), std::string::npos);
    }
  }
  EXPECT_GT(parsed, 5); // the cuts between the model's top-level fields
}

TEST_F(OnnxWeights, CorruptBytesFailCleanlyOrReadAsTheOfficialParserDoes) {
  std::string whole = makeModel().SerializeAsString();
  int agreed = 0;
  for (size_t i = 0; i < whole.size(); ++i)
    for (int change : {0x00, 0xff, 0x80, 0x01, 0x07, 0x7f}) {
      std::string bytes = whole;
      bytes[i] = change == 0x01 || change == 0x07 ? char(bytes[i] ^ change)
                                                  : char(change);
      hx::Graph g;
      std::string error;
      bool ok = hx::readGraph(bytes.data(), bytes.size(), g, error);
      if (!ok) {
        EXPECT_FALSE(error.empty());
        continue;
      }
      bool officialOk;
      ModelProto m = parseOfficial(bytes, &officialOk);
      if (officialOk) {
        SCOPED_TRACE("byte " + std::to_string(i) + " set to " +
                     std::to_string(uint8_t(bytes[i])));
        expectSameGraph(expectedGraph(m), g);
        ++agreed;
      }
      // What reads writes (a name that corruption made twice is left out).
      std::map<std::string, int> uses;
      for (const hx::Tensor &t : g.initializers)
        ++uses[t.name];
      std::vector<hx::Tensor> weights;
      for (const hx::Tensor &t : g.initializers)
        if (t.hasData && uses[t.name] == 1)
          weights.push_back(t);
      std::string out;
      EXPECT_TRUE(hx::encodeModelWithWeights(bytes.data(), bytes.size(),
                                             weights, out, error))
          << error;
    }
  EXPECT_GT(agreed, 100);
}

TEST_F(OnnxWeights, RefusesLengthsAndVarintsPastTheEnd) {
  // A graph of 2^62 bytes in a file of 10.
  EXPECT_NE(readError(Bytes().tag(7, 2).varint(1ull << 62).s)
                .find("a length of 4611686018427387904 bytes past the end "
                      "(0 left, field 7) in a ModelProto at byte 0"),
            std::string::npos);
  // The same inside the graph, and inside a tensor.
  std::string inGraph =
      wrapGraph(Bytes().tag(5, 2).varint(~0ull).s + std::string(4, '\0'));
  EXPECT_NE(readError(inGraph).find("past the end"), std::string::npos);
  std::string inTensor =
      wrapGraph(Bytes().bytesField(5, Bytes().tag(9, 2).varint(1u << 31).s).s);
  EXPECT_NE(readError(inTensor).find("in a TensorProto"), std::string::npos);
  // Eleven bytes of varint; a tenth byte over 1.
  EXPECT_NE(readError(Bytes().tag(1, 0).s + std::string(10, '\xff') + "\x01")
                .find("invalid varint"),
            std::string::npos);
  EXPECT_NE(readError(Bytes().tag(1, 0).s + std::string(9, '\xff') + "\x02")
                .find("invalid varint"),
            std::string::npos);
  // Truncated fixed-size values, groups, wire types 6 and 7.
  EXPECT_NE(readError(Bytes().tag(1, 1).s + "1234567").find("truncated 64-bit"),
            std::string::npos);
  EXPECT_NE(readError(Bytes().tag(1, 5).s + "123").find("truncated 32-bit"),
            std::string::npos);
  EXPECT_NE(readError(Bytes().tag(1, 3).s).find("group"), std::string::npos);
  EXPECT_NE(readError(Bytes().tag(1, 6).s).find("invalid wire type 6"),
            std::string::npos);
  EXPECT_NE(readError(std::string(1, '\0')).find("invalid field number"),
            std::string::npos);
  // Known fields with the wrong wire type.
  EXPECT_NE(readError(Bytes().varintField(7, 1).s)
                .find("ModelProto.graph (7) with wire type varint, expected "
                      "length-delimited"),
            std::string::npos);
  EXPECT_NE(
      readError(
          wrapGraph(Bytes().bytesField(5, Bytes().fixed32Field(2, 1).s).s))
          .find("TensorProto.data_type"),
      std::string::npos);
  // A packed dims field cut inside a varint.
  EXPECT_NE(
      readError(
          wrapGraph(Bytes().bytesField(5, Bytes().bytesField(1, "\x80").s).s))
          .find("packed varint"),
      std::string::npos);
}

TEST_F(OnnxWeights, RefusesExternalData) {
  for (int variant = 0; variant < 3; ++variant) {
    ModelProto m = makeModel();
    TensorProto *t = m.mutable_graph()->add_initializer();
    t->set_name("w");
    t->set_data_type(TensorProto::FLOAT);
    t->add_dims(4);
    if (variant != 1)
      t->set_data_location(TensorProto::EXTERNAL);
    if (variant != 2) {
      auto *entry = t->add_external_data();
      entry->set_key("location");
      entry->set_value("w.bin");
    }
    std::string bytes = m.SerializeAsString();
    EXPECT_EQ(readError(bytes),
              "tensor 'w' keeps its data in an external file, which hd does "
              "not read");
    fs::path file = dir / "external.onnx";
    std::ofstream(file, std::ios::binary) << bytes;
    hx::Graph g;
    std::string error;
    EXPECT_FALSE(hx::readGraphFile(file.string(), g, error));
    EXPECT_EQ(error, file.string() + ": tensor 'w' keeps its data in an "
                                     "external file, which hd does not read");
  }
}

TEST_F(OnnxWeights, RefusesFloatDataThatDoesNotFitTheDims) {
  auto withTensor = [](std::function<void(TensorProto *)> edit) {
    ModelProto m = makeModel();
    TensorProto *t = m.mutable_graph()->add_initializer();
    t->set_name("bad");
    t->set_data_type(TensorProto::FLOAT);
    edit(t);
    return m.SerializeAsString();
  };
  EXPECT_EQ(readError(withTensor([](TensorProto *t) {
              t->add_dims(2);
              t->add_dims(2);
              t->set_raw_data(std::string(12, '\0'));
            })),
            "tensor 'bad' has 12 bytes of raw_data, which do not match its "
            "dims [2, 2] of FLOAT");
  EXPECT_NE(readError(withTensor([](TensorProto *t) {
              t->add_dims(5);
              t->set_raw_data(std::string(21, '\0'));
            })).find("21 bytes of raw_data"),
            std::string::npos);
  EXPECT_EQ(readError(withTensor([](TensorProto *t) {
              t->add_dims(4);
              for (int i = 0; i < 3; ++i)
                t->add_float_data(1);
            })),
            "tensor 'bad' has 3 float_data values, which do not match its "
            "dims [4]");
  // Dims whose product overflows: refused without allocating it.
  EXPECT_NE(readError(withTensor([](TensorProto *t) {
              for (int i = 0; i < 3; ++i)
                t->add_dims(int64_t(1) << 40);
              t->set_raw_data("1234");
            })).find("do not match its dims"),
            std::string::npos);
  EXPECT_EQ(readError(withTensor([](TensorProto *t) {
              t->add_dims(3);
              t->add_dims(-1);
            })),
            "tensor 'bad' has a negative dim: [3, -1]");
  EXPECT_EQ(readError(withTensor([](TensorProto *t) {
              t->add_dims(1);
              t->set_raw_data("1234");
              t->add_float_data(1);
            })),
            "tensor 'bad' has both raw_data and float_data");
  // Packed float_data that is not whole floats.
  EXPECT_NE(
      readError(
          wrapGraph(
              Bytes()
                  .bytesField(
                      5, Bytes().varintField(2, 1).bytesField(4, "12345").s)
                  .s))
          .find("not a multiple of 4"),
      std::string::npos);
  // A non-FLOAT tensor's data is not read, so not checked either.
  readOk(withTensor([](TensorProto *t) {
    t->set_data_type(TensorProto::INT64);
    t->add_dims(4);
    t->set_raw_data("1");
  }));
}

TEST_F(OnnxWeights, ReadGraphFileNamesTheFile) {
  hx::Graph g;
  std::string error;
  fs::path missing = dir / "missing.onnx";
  EXPECT_FALSE(hx::readGraphFile(missing.string(), g, error));
  EXPECT_EQ(error, "cannot open the ONNX model '" + missing.string() +
                       "': No such file or directory");
  fs::path bad = dir / "bad.onnx";
  std::ofstream(bad, std::ios::binary) << "\x3a\x10 short";
  EXPECT_FALSE(hx::readGraphFile(bad.string(), g, error));
  EXPECT_EQ(error.rfind(bad.string() + ": malformed ONNX model: ", 0), 0u)
      << error;
  // An empty file is an empty model, as it is to protobuf.
  fs::path empty = dir / "empty.onnx";
  std::ofstream(empty, std::ios::binary).flush();
  EXPECT_TRUE(hx::readGraphFile(empty.string(), g, error)) << error;
  EXPECT_TRUE(g.inputs.empty() && g.initializers.empty());
}

} // namespace
