//===- OnnxOracle.h - protobuf, hdrt_onnx's oracle --------------*- C++ -*-===//
//
// The runtime reads and writes ONNX's protobuf wire format by hand; its
// tests' oracle is the official ONNX C++ API (libonnx's generated protobuf
// classes), which only HDOnnxWeightsTests links. This file holds what the
// three test files share: what readGraph must return for a model the
// official API parsed, the models they build, a hand-made encoder for bytes
// the official API never writes, and a fixture with a scratch directory.
//
//===----------------------------------------------------------------------===//

#ifndef HD_UNITTESTS_RUNTIME_ONNXORACLE_H
#define HD_UNITTESTS_RUNTIME_ONNXORACLE_H

#include "hdrt/onnx/Weights.h"

#include <onnx/onnx_pb.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace onnxtest {

namespace hx = hdrt::onnx;
namespace fs = std::filesystem;
using ::onnx::GraphProto;
using ::onnx::ModelProto;
using ::onnx::TensorProto;
using ::onnx::ValueInfoProto;

/// The bits of floats, to compare them NaN payloads and all.
std::vector<uint32_t> bitsOf(const std::vector<float> &values);
uint32_t bitsOfFloat(float f);
/// Little-endian raw_data and back.
std::vector<float> floatsOfRaw(const std::string &raw);
std::string rawOfFloats(const std::vector<float> &values);

/// What readGraph must return for `m`, from the official parse.
hx::Graph expectedGraph(const ModelProto &m);
void expectSameTensor(const hx::Tensor &want, const hx::Tensor &got);
void expectSameGraph(const hx::Graph &want, const hx::Graph &got);
/// readGraph, expected to succeed or to fail with a message.
hx::Graph readOk(const std::string &bytes);
std::string readError(const std::string &bytes);
/// ParseFromString; expected to succeed unless `ok` is given.
ModelProto parseOfficial(const std::string &bytes, bool *ok = nullptr);

/// Unknown fields of every wire type but groups, numbered from `first`.
void addUnknownFields(google::protobuf::Message &m, int first);
/// A FLOAT-or-other tensor input; a dim is `params[i]` when that is given,
/// else dims[i], and neither when dims[i] < 0.
ValueInfoProto *addInput(GraphProto *g, const std::string &name, int elemType,
                         const std::vector<int64_t> &dims,
                         const std::vector<std::string> &params = {});
TensorProto *addFloatInitializer(GraphProto *g, const std::string &name,
                                 const std::vector<int64_t> &dims,
                                 const std::vector<float> &values, bool raw);
/// A model with one of everything the reader meets: initializers with
/// raw_data and float_data, an INT64 one, one without data, inputs with
/// static, symbolic and unknown dims, a non-tensor input, nodes with
/// attributes, opset imports, doc strings, metadata and unknown fields.
ModelProto makeModel();
const TensorProto *findInitializer(const ModelProto &m,
                                   const std::string &name);
/// A FLOAT weight of `dims` whose values go up by 0.25 from `start`.
hx::Tensor weight(const std::string &name, std::vector<int64_t> dims,
                  float start);
std::string slurp(const fs::path &path);

/// A hand-made encoder for bytes the official API never writes (packed
/// dims, unpacked float_data, merged fields): independent of the runtime's.
struct Bytes {
  std::string s;
  Bytes &varint(uint64_t v) {
    for (; v >= 0x80; v >>= 7)
      s.push_back(char(uint8_t(v) | 0x80));
    s.push_back(char(v));
    return *this;
  }
  Bytes &tag(int number, int type) {
    return varint(uint64_t(number) << 3 | type);
  }
  Bytes &varintField(int number, uint64_t v) {
    return tag(number, 0).varint(v);
  }
  Bytes &fixed32Field(int number, uint32_t v) {
    tag(number, 5);
    for (int b = 0; b < 4; ++b)
      s.push_back(char(uint8_t(v >> (8 * b))));
    return *this;
  }
  Bytes &bytesField(int number, const std::string &payload) {
    tag(number, 2).varint(payload.size());
    s += payload;
    return *this;
  }
};

/// Model bytes whose graph field holds `graphBytes`.
std::string wrapGraph(const std::string &graphBytes);

class OnnxWeights : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("hd-onnx-weights-test-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  /// Writes `weights` into `m`'s bytes at dir/out.onnx and parses the
  /// result with the official API.
  ModelProto writeAndParse(const ModelProto &m,
                           const std::vector<hx::Tensor> &weights) {
    std::string bytes = m.SerializeAsString(), error;
    fs::path out = dir / "out.onnx";
    EXPECT_TRUE(hx::writeModelWithWeights(bytes.data(), bytes.size(), weights,
                                          out.string(), error))
        << error;
    EXPECT_FALSE(fs::exists(out.string() + ".tmp"));
    return parseOfficial(slurp(out));
  }

  fs::path dir;
};

} // namespace onnxtest

#endif // HD_UNITTESTS_RUNTIME_ONNXORACLE_H
