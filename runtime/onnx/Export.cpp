//===- Export.cpp - a model written back with its trained weights ---------===//
//
// At the end of training a program writes the source model again with the
// weights it trained. It rewrites as little as it can: the model's bytes
// are copied field by field, and only the graph field is re-encoded, in
// which only the initializers named by a weight are re-encoded (their data
// replaced, their other fields kept) and a weight that was only a graph
// input gets a new initializer. Nodes, opset imports, doc strings and
// fields this file has never heard of pass through unchanged.
//
// The model is read whole first (readGraph), so the rewrite meets only
// bytes already known to be well formed, and every weight is checked
// against what the model declares before a byte is written.
//
//===----------------------------------------------------------------------===//

#include "Messages.h"
#include "Wire.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <set>
#include <unistd.h>

namespace hdrt::onnx {

using wire::Field;
using wire::Reader;
using wire::WireType;

namespace {

/// The TensorProto fields that hold a tensor's type, dims or data: a
/// replaced initializer drops them all and gets new ones.
bool isDataField(uint32_t number) {
  switch (number) {
  case tensor::kDims:
  case tensor::kDataType:
  case tensor::kFloatData:
  case tensor::kInt32Data:
  case tensor::kStringData:
  case tensor::kInt64Data:
  case tensor::kRawData:
  case tensor::kDoubleData:
  case tensor::kUint64Data:
  case tensor::kExternalData:
  case tensor::kDataLocation:
    return true;
  default:
    return false;
  }
}

void putDimsAndType(std::string &out, const Tensor &w) {
  for (int64_t d : w.dims)
    wire::putVarintField(out, tensor::kDims, uint64_t(d));
  wire::putVarintField(out, tensor::kDataType, uint64_t(kFloat));
}

// raw_data is little-endian floats, this host's layout: written whole.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "raw_data is written as the host's floats");

void putRawData(std::string &out, const Tensor &w) {
  wire::putBytesField(out, tensor::kRawData, w.values.data(),
                      w.values.size() * sizeof(float));
}

/// A new FLOAT initializer for a weight that was only a graph input.
std::string newInitializer(const Tensor &w) {
  std::string t;
  putDimsAndType(t, w);
  wire::putBytesField(t, tensor::kName, w.name.data(), w.name.size());
  putRawData(t, w);
  return t;
}

/// `old` (a TensorProto's bytes) with the data of `w`: its fields other
/// than type, dims and data kept in their order.
bool replacedInitializer(const Field &old, const uint8_t *origin,
                         const Tensor &w, std::string &t, std::string &error) {
  putDimsAndType(t, w);
  Reader r(old.data, old.data + old.size, origin, "TensorProto");
  Field f;
  while (!r.done()) {
    if (!r.next(f, error))
      return false;
    if (!isDataField(f.number))
      t.append(reinterpret_cast<const char *>(f.begin), f.end - f.begin);
  }
  putRawData(t, w);
  return true;
}

/// What to do with each weight, checked against the model's graph.
struct Plan {
  std::map<std::string, const Tensor *> replaced;
  std::vector<const Tensor *> added; // in the order of `weights`
};

bool planWeights(const Graph &g, const std::vector<Tensor> &weights, Plan &plan,
                 std::string &error) {
  std::map<std::string, std::vector<const Tensor *>> inits, inputs;
  for (const Tensor &t : g.initializers)
    inits[t.name].push_back(&t);
  for (const Tensor &t : g.inputs)
    inputs[t.name].push_back(&t);
  std::set<std::string> seen;
  for (const Tensor &w : weights) {
    std::string named = "weight '" + w.name + "'";
    if (!seen.insert(w.name).second) {
      error = named + " is given twice";
      return false;
    }
    for (int64_t d : w.dims)
      if (d < 0) {
        error = named + " has a negative dim: " + dimsText(w.dims);
        return false;
      }
    if (volumeOf(w.dims) != w.values.size()) {
      error = named + " has " + std::to_string(w.values.size()) +
              " values for its dims " + dimsText(w.dims);
      return false;
    }
    auto init = inits.find(w.name);
    if (init != inits.end()) {
      for (const Tensor *t : init->second) {
        if (t->dataType != kFloat) {
          error = named + ": the model's initializer has data type " +
                  std::to_string(t->dataType) + ", not FLOAT (1)";
          return false;
        }
        if (t->dims != w.dims) {
          error = named + " has dims " + dimsText(w.dims) +
                  ", the model's initializer " + dimsText(t->dims);
          return false;
        }
      }
      plan.replaced[w.name] = &w;
      continue;
    }
    auto input = inputs.find(w.name);
    if (input == inputs.end()) {
      error = named + " is neither an initializer nor an input of the "
                      "model's graph";
      return false;
    }
    for (const Tensor *t : input->second) {
      if (t->dataType != 0 && t->dataType != kFloat) {
        error = named + ": the model's input has elem type " +
                std::to_string(t->dataType) + ", not FLOAT (1)";
        return false;
      }
      bool fits = !t->hasShape || t->dims.size() == w.dims.size();
      for (size_t i = 0; fits && t->hasShape && i < w.dims.size(); ++i)
        fits = t->dims[i] < 0 || t->dims[i] == w.dims[i];
      if (!fits) {
        error = named + " has dims " + dimsText(w.dims) +
                ", the model's input " + dimsText(t->dims) + " (-1: symbolic)";
        return false;
      }
    }
    plan.added.push_back(&w);
  }
  return true;
}

bool encodeGraph(const Field &outer, const uint8_t *origin, const Plan &plan,
                 bool addHere, std::string &out, std::string &error) {
  Reader r(outer.data, outer.data + outer.size, origin, "GraphProto");
  Field f;
  while (!r.done()) {
    if (!r.next(f, error))
      return false;
    if (f.number == graph::kInitializer) {
      Tensor old;
      if (!readTensor(f.data, f.data + f.size, origin, old, error))
        return false;
      auto it = plan.replaced.find(old.name);
      if (it != plan.replaced.end()) {
        std::string t;
        if (!replacedInitializer(f, origin, *it->second, t, error))
          return false;
        wire::putBytesField(out, graph::kInitializer, t.data(), t.size());
        continue;
      }
    }
    out.append(reinterpret_cast<const char *>(f.begin), f.end - f.begin);
  }
  if (addHere)
    for (const Tensor *w : plan.added) {
      std::string t = newInitializer(*w);
      wire::putBytesField(out, graph::kInitializer, t.data(), t.size());
    }
  return true;
}

/// Makes the rename durable: a crash right after it must not bring the old
/// directory entry back.
void syncDirectoryOf(const std::string &path) {
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "."
                    : slash == 0               ? "/"
                                               : path.substr(0, slash);
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

} // namespace

bool encodeModelWithWeights(const void *model, size_t size,
                            const std::vector<Tensor> &weights,
                            std::string &out, std::string &error) {
  static const uint8_t kNone = 0;
  const uint8_t *begin = size ? static_cast<const uint8_t *>(model) : &kNone;
  Graph g;
  Plan plan;
  if (!readGraph(begin, size, g, error) ||
      !planWeights(g, weights, plan, error))
    return false;

  // New initializers go into the last graph field: protobuf merges a
  // message field's occurrences, so that one is where the graph ends.
  Reader r(begin, begin + size, begin, "ModelProto");
  Field f;
  const uint8_t *lastGraph = nullptr;
  while (!r.done()) {
    if (!r.next(f, error))
      return false;
    if (f.number == model::kGraph)
      lastGraph = f.begin;
  }
  out.clear();
  r = Reader(begin, begin + size, begin, "ModelProto");
  while (!r.done()) {
    if (!r.next(f, error))
      return false;
    if (f.number != model::kGraph) {
      out.append(reinterpret_cast<const char *>(f.begin), f.end - f.begin);
      continue;
    }
    std::string graphBytes;
    if (!encodeGraph(f, begin, plan, f.begin == lastGraph, graphBytes, error))
      return false;
    wire::putBytesField(out, model::kGraph, graphBytes.data(),
                        graphBytes.size());
  }
  return true;
}

bool writeModelWithWeights(const void *model, size_t size,
                           const std::vector<Tensor> &weights,
                           const std::string &path, std::string &error) {
  std::string bytes;
  if (!encodeModelWithWeights(model, size, weights, bytes, error)) {
    error = "cannot export to '" + path + "': " + error;
    return false;
  }
  std::string tmp = path + ".tmp";
  std::FILE *file = std::fopen(tmp.c_str(), "wb");
  if (!file) {
    error =
        "cannot write the ONNX model '" + tmp + "': " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  ok = ok && std::fflush(file) == 0 && ::fsync(fileno(file)) == 0;
  int savedErrno = errno;
  if (std::fclose(file) != 0 && ok) {
    ok = false;
    savedErrno = errno;
  }
  if (!ok) {
    std::remove(tmp.c_str());
    error = "writing the ONNX model '" + tmp +
            "' failed: " + std::strerror(savedErrno);
    return false;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    savedErrno = errno;
    std::remove(tmp.c_str());
    error = "cannot rename '" + tmp + "' to '" + path +
            "': " + std::strerror(savedErrno);
    return false;
  }
  syncDirectoryOf(path);
  return true;
}

} // namespace hdrt::onnx
