//===- Weights.h - a model's weights from and into ONNX ---------*- C++ -*-===//
//
// A compiled training program starts from an ONNX model's trained weights
// (`--init model.onnx`) and, at the end, writes the model back with the
// weights it trained (`--export-onnx out.onnx`) from a copy of the source
// model's bytes it embeds. It links the runtime alone, and machines with
// GPUs may have no protobuf, so this is a reader and writer of exactly the
// ONNX messages it needs, on the protobuf wire format, with no library
// behind it. Malformed bytes fail with a message, never a crash: these
// functions are fuzzed (tools/hd-fuzzers/OnnxWeightsFuzzer.cpp) and tested
// against the official protobuf API (unittests/Runtime/OnnxWeightsTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_ONNX_WEIGHTS_H
#define HDRT_ONNX_WEIGHTS_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hdrt::onnx {

/// TensorProto.DataType.FLOAT: the only type whose data hd reads.
constexpr int32_t kFloat = 1;

/// An initializer (or a graph input) of an ONNX model.
struct Tensor {
  std::string name;
  int32_t dataType = 0;      // TensorProto.DataType (1 = FLOAT)
  std::vector<int64_t> dims; // an input's: -1 for a symbolic or missing dim
  std::vector<float> values; // for FLOAT tensors whose data is present
  bool hasData = false; // raw_data or float_data present (and the right size)
  /// Inputs: the type has a shape (without one, dims is empty and the rank
  /// unknown). Initializers always have their dims.
  bool hasShape = false;
};

/// The graph of a ModelProto: its initializers (with their data when FLOAT)
/// and its inputs (name, elem type and static dims; -1 for a symbolic or
/// missing dim). Fails with a message on malformed bytes: a truncated or
/// invalid varint, a length past the end, wrong wire types for the fields
/// read, a negative dim, a FLOAT tensor whose data size does not match its
/// dims, external data (`data_location` EXTERNAL / `external_data`):
/// "tensor 'x' keeps its data in an external file, which hd does not read".
struct Graph {
  std::vector<Tensor> initializers;
  std::vector<Tensor> inputs;
};

bool readGraph(const void *model, size_t size, Graph &graph,
               std::string &error);
/// readGraph on a file's bytes; the error names the file.
bool readGraphFile(const std::string &path, Graph &graph, std::string &error);

/// The bytes of `model` (ModelProto bytes) with every tensor of `weights`
/// as a FLOAT initializer of the graph (raw_data, little-endian): an
/// initializer of that name is replaced (it must be FLOAT with the same
/// dims; its other fields, such as doc_string, stay), a name that is only
/// a graph input gets an initializer added after the graph's other fields
/// (its declared elem type, if any, must be FLOAT, and its static dims
/// must match), any other name is an error, as are a name given twice and
/// values that do not fill the dims. Every other byte of the model is kept
/// as it was (other fields, other initializers, nodes, inputs, outputs,
/// opset imports, unknown fields).
bool encodeModelWithWeights(const void *model, size_t size,
                            const std::vector<Tensor> &weights,
                            std::string &out, std::string &error);

/// encodeModelWithWeights into the file `path`, written through
/// `path + ".tmp"`, fsync and a rename, so a failure leaves no partial file
/// (and an existing `path` as it was).
bool writeModelWithWeights(const void *model, size_t size,
                           const std::vector<Tensor> &weights,
                           const std::string &path, std::string &error);

/// "[2, 3]": dims as the messages above write them.
std::string dimsText(const std::vector<int64_t> &dims);

} // namespace hdrt::onnx

#endif // HDRT_ONNX_WEIGHTS_H
