//===- Weights.cpp - a model's initializers and inputs from ONNX ----------===//
//
// Reads the few ONNX messages a program needs to start from a model's
// weights: ModelProto.graph, the graph's initializers (TensorProto) and
// inputs (ValueInfoProto down to each dimension). Every other field is
// skipped by its wire type, and fields repeated or split the way protobuf
// allows (a message field twice, packed or unpacked repeated scalars) mean
// what they mean to protobuf: a singular field's last value wins, a
// message field's occurrences merge, repeated fields append.
//
// Nothing is allocated for a size the bytes do not back: a FLOAT tensor's
// values are decoded only once its data has been found to match its dims.
//
//===----------------------------------------------------------------------===//

#include "Messages.h"
#include "Wire.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace hdrt::onnx {

using wire::Field;
using wire::Reader;
using wire::WireType;

namespace {

float floatOfBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// A float stored little-endian, whatever the host.
float littleEndianFloat(const uint8_t *p) {
  return floatOfBits(uint32_t(p[0]) | uint32_t(p[1]) << 8 |
                     uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24);
}

bool readDimension(const Field &outer, const uint8_t *origin, int64_t &dim,
                   std::string &error) {
  Reader r(outer.data, outer.data + outer.size, origin,
           "TensorShapeProto.Dimension");
  dim = -1; // neither a value nor a parameter: unknown
  Field f;
  while (!r.done()) {
    if (!r.next(f, error))
      return false;
    if (f.number == type::kDimValue) {
      if (!r.expect(f, WireType::Varint, "Dimension.dim_value", error))
        return false;
      dim = int64_t(f.value);
    } else if (f.number == type::kDimParam) {
      if (!r.expect(f, WireType::Bytes, "Dimension.dim_param", error))
        return false;
      dim = -1;
    }
  }
  return true;
}

bool readShape(const Field &outer, const uint8_t *origin, Tensor &t,
               std::string &error) {
  Reader r(outer.data, outer.data + outer.size, origin, "TensorShapeProto");
  Field f;
  while (!r.done()) {
    if (!r.next(f, error))
      return false;
    if (f.number != type::kDim)
      continue;
    if (!r.expect(f, WireType::Bytes, "TensorShapeProto.dim", error))
      return false;
    int64_t dim;
    if (!readDimension(f, origin, dim, error))
      return false;
    t.dims.push_back(dim);
  }
  return true;
}

bool readTensorType(const Field &outer, const uint8_t *origin, Tensor &t,
                    std::string &error) {
  Reader r(outer.data, outer.data + outer.size, origin, "TypeProto.Tensor");
  Field f;
  while (!r.done()) {
    if (!r.next(f, error))
      return false;
    if (f.number == type::kElemType) {
      if (!r.expect(f, WireType::Varint, "TypeProto.Tensor.elem_type", error))
        return false;
      t.dataType = int32_t(uint32_t(f.value));
    } else if (f.number == type::kShape) {
      if (!r.expect(f, WireType::Bytes, "TypeProto.Tensor.shape", error))
        return false;
      t.hasShape = true;
      if (!readShape(f, origin, t, error))
        return false;
    }
  }
  return true;
}

bool readType(const Field &outer, const uint8_t *origin, Tensor &t,
              std::string &error) {
  Reader r(outer.data, outer.data + outer.size, origin, "TypeProto");
  Field f;
  while (!r.done()) {
    if (!r.next(f, error))
      return false;
    if (f.number == type::kTensorType) {
      if (!r.expect(f, WireType::Bytes, "TypeProto.tensor_type", error) ||
          !readTensorType(f, origin, t, error))
        return false;
      continue;
    }
    // Another member of the `value` oneof replaces a tensor type read so
    // far (a field of the wrong wire type is an unknown field to protobuf).
    for (uint32_t other : type::kOtherValues)
      if (f.number == other && f.type == WireType::Bytes) {
        t.dataType = 0;
        t.dims.clear();
        t.hasShape = false;
      }
  }
  return true;
}

bool readValueInfo(const Field &outer, const uint8_t *origin, Tensor &t,
                   std::string &error) {
  Reader r(outer.data, outer.data + outer.size, origin, "ValueInfoProto");
  Field f;
  while (!r.done()) {
    if (!r.next(f, error))
      return false;
    if (f.number == value_info::kName) {
      if (!r.expect(f, WireType::Bytes, "ValueInfoProto.name", error))
        return false;
      t.name.assign(reinterpret_cast<const char *>(f.data), f.size);
    } else if (f.number == value_info::kType) {
      if (!r.expect(f, WireType::Bytes, "ValueInfoProto.type", error) ||
          !readType(f, origin, t, error))
        return false;
    }
  }
  return true;
}

/// Appends packed varints (a repeated int64 field's Bytes form).
bool readPackedInt64s(const Reader &r, const Field &f,
                      std::vector<int64_t> &out, std::string &error) {
  const uint8_t *p = f.data, *end = f.data + f.size;
  while (p != end) {
    uint64_t v;
    if (!wire::readVarint(p, end, v))
      return r.fail(f.begin,
                    "a truncated or invalid packed varint (field " +
                        std::to_string(f.number) + ")",
                    error);
    out.push_back(int64_t(v));
  }
  return true;
}

bool readGraphMessage(const Field &outer, const uint8_t *origin, Graph &g,
                      std::string &error) {
  Reader r(outer.data, outer.data + outer.size, origin, "GraphProto");
  Field f;
  while (!r.done()) {
    if (!r.next(f, error))
      return false;
    if (f.number == graph::kInitializer) {
      if (!r.expect(f, WireType::Bytes, "GraphProto.initializer", error))
        return false;
      g.initializers.emplace_back();
      if (!readTensor(f.data, f.data + f.size, origin, g.initializers.back(),
                      error))
        return false;
    } else if (f.number == graph::kInput) {
      if (!r.expect(f, WireType::Bytes, "GraphProto.input", error))
        return false;
      g.inputs.emplace_back();
      if (!readValueInfo(f, origin, g.inputs.back(), error))
        return false;
    }
  }
  return true;
}

} // namespace

std::string dimsText(const std::vector<int64_t> &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

uint64_t volumeOf(const std::vector<int64_t> &dims) {
  uint64_t n = 1;
  bool overflow = false;
  for (int64_t d : dims) {
    if (d == 0)
      return 0;
    if (n > UINT64_MAX / uint64_t(d))
      overflow = true;
    else
      n *= uint64_t(d);
  }
  return overflow ? UINT64_MAX : n;
}

bool readTensor(const uint8_t *begin, const uint8_t *end, const uint8_t *origin,
                Tensor &t, std::string &error) {
  Reader r(begin, end, origin, "TensorProto");
  t = Tensor();
  t.hasShape = true;
  const uint8_t *raw = nullptr;
  size_t rawSize = 0;
  bool hasRaw = false, external = false;
  uint64_t location = 0;
  std::vector<float> floats;
  Field f;
  while (!r.done()) {
    if (!r.next(f, error))
      return false;
    switch (f.number) {
    case tensor::kDims:
      if (f.type == WireType::Bytes) {
        if (!readPackedInt64s(r, f, t.dims, error))
          return false;
        break;
      }
      if (!r.expect(f, WireType::Varint, "TensorProto.dims", error))
        return false;
      t.dims.push_back(int64_t(f.value));
      break;
    case tensor::kDataType:
      if (!r.expect(f, WireType::Varint, "TensorProto.data_type", error))
        return false;
      t.dataType = int32_t(uint32_t(f.value));
      break;
    case tensor::kFloatData:
      if (f.type == WireType::Bytes) {
        if (f.size % 4)
          return r.fail(f.begin,
                        "packed float_data of " + std::to_string(f.size) +
                            " bytes, not a multiple of 4",
                        error);
        for (size_t i = 0; i < f.size; i += 4)
          floats.push_back(littleEndianFloat(f.data + i));
        break;
      }
      if (!r.expect(f, WireType::Fixed32, "TensorProto.float_data", error))
        return false;
      floats.push_back(floatOfBits(uint32_t(f.value)));
      break;
    case tensor::kName:
      if (!r.expect(f, WireType::Bytes, "TensorProto.name", error))
        return false;
      t.name.assign(reinterpret_cast<const char *>(f.data), f.size);
      break;
    case tensor::kRawData:
      if (!r.expect(f, WireType::Bytes, "TensorProto.raw_data", error))
        return false;
      raw = f.data;
      rawSize = f.size;
      hasRaw = true;
      break;
    case tensor::kExternalData:
      if (!r.expect(f, WireType::Bytes, "TensorProto.external_data", error))
        return false;
      external = true;
      break;
    case tensor::kDataLocation:
      if (!r.expect(f, WireType::Varint, "TensorProto.data_location", error))
        return false;
      location = f.value;
      break;
    default:
      break;
    }
  }
  std::string named = "tensor '" + t.name + "'";
  if (external || location == tensor::kExternal) {
    error = named + " keeps its data in an external file, which hd does not "
                    "read";
    return false;
  }
  for (int64_t d : t.dims)
    if (d < 0) {
      error = named + " has a negative dim: " + dimsText(t.dims);
      return false;
    }
  if (t.dataType != kFloat)
    return true;
  uint64_t count = volumeOf(t.dims);
  if (hasRaw && !floats.empty()) {
    error = named + " has both raw_data and float_data";
    return false;
  }
  if (hasRaw) {
    if (rawSize % 4 || rawSize / 4 != count) {
      error = named + " has " + std::to_string(rawSize) +
              " bytes of raw_data, which do not match its dims " +
              dimsText(t.dims) + " of FLOAT";
      return false;
    }
    t.values.resize(rawSize / 4);
    for (size_t i = 0; i < t.values.size(); ++i)
      t.values[i] = littleEndianFloat(raw + 4 * i);
    t.hasData = true;
  } else if (!floats.empty()) {
    if (floats.size() != count) {
      error = named + " has " + std::to_string(floats.size()) +
              " float_data values, which do not match its dims " +
              dimsText(t.dims);
      return false;
    }
    t.values = std::move(floats);
    t.hasData = true;
  }
  return true;
}

bool readGraph(const void *model, size_t size, Graph &graph,
               std::string &error) {
  static const uint8_t kNone = 0;
  const uint8_t *begin = size ? static_cast<const uint8_t *>(model) : &kNone;
  graph = Graph();
  Reader r(begin, begin + size, begin, "ModelProto");
  Field f;
  while (!r.done()) {
    if (!r.next(f, error))
      return false;
    if (f.number != model::kGraph)
      continue;
    if (!r.expect(f, WireType::Bytes, "ModelProto.graph", error) ||
        !readGraphMessage(f, begin, graph, error))
      return false;
  }
  return true;
}

bool readGraphFile(const std::string &path, Graph &graph, std::string &error) {
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error =
        "cannot open the ONNX model '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, file)) > 0)
    bytes.insert(bytes.end(), chunk, chunk + n);
  bool failed = std::ferror(file);
  int savedErrno = errno;
  std::fclose(file);
  if (failed) {
    error = "cannot read the ONNX model '" + path +
            "': " + std::strerror(savedErrno);
    return false;
  }
  if (!readGraph(bytes.data(), bytes.size(), graph, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

} // namespace hdrt::onnx
