//===- hdrt-onnx-weights.cpp - the runtime's ONNX weights on the shell ----===//
//
// The runtime reads a model's weights from ONNX and writes them back
// (hdrt/onnx/Weights.h) inside compiled programs; this tool runs the same
// code on files, so lit tests can check it against Python's onnx module
// (test/tools/hdrt-onnx-weights.test) without compiling a program:
//
//   hdrt-onnx-weights MODEL
//       prints the graph's initializers and inputs;
//   hdrt-onnx-weights MODEL -o OUT [--all] [NAME[:D0xD1...]]...
//       writes OUT with each NAME a FLOAT initializer of a ramp (value k is
//       (k % 16) / 8 - 1, exact in float), its dims the model's or those
//       given; --all names every FLOAT initializer and every FLOAT input
//       of static dims.
//
// It links the runtime's ONNX library alone: no MLIR, no protobuf.
//
//===----------------------------------------------------------------------===//

#include "hdrt/onnx/Weights.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

using hdrt::onnx::dimsText;
using hdrt::onnx::Graph;
using hdrt::onnx::Tensor;

namespace {

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "hdrt-onnx-weights: error: %s\n", message.c_str());
  std::exit(1);
}

std::string typeName(int32_t type) {
  switch (type) {
  case 0:
    return "UNDEFINED";
  case 1:
    return "FLOAT";
  case 7:
    return "INT64";
  default:
    return "type " + std::to_string(type);
  }
}

void print(const Graph &g) {
  std::printf("%zu initializers, %zu inputs\n", g.initializers.size(),
              g.inputs.size());
  for (const Tensor &t : g.initializers) {
    std::printf("initializer %s %s %s", t.name.c_str(),
                typeName(t.dataType).c_str(), dimsText(t.dims).c_str());
    if (t.hasData) {
      std::printf(" data:");
      for (size_t i = 0; i < t.values.size() && i < 4; ++i)
        std::printf(" %g", t.values[i]);
      if (t.values.size() > 4)
        std::printf(" ... (%zu values)", t.values.size());
    }
    std::printf("\n");
  }
  for (const Tensor &t : g.inputs)
    std::printf("input %s %s %s\n", t.name.c_str(),
                typeName(t.dataType).c_str(),
                t.hasShape ? dimsText(t.dims).c_str() : "(no shape)");
}

/// "NAME" or "NAME:2x3x4" (":" alone: a scalar).
Tensor weightOf(const std::string &arg, const Graph &g) {
  Tensor w;
  w.name = arg.substr(0, arg.find(':'));
  w.dataType = hdrt::onnx::kFloat;
  w.hasData = w.hasShape = true;
  if (arg.find(':') != std::string::npos) {
    std::string dims = arg.substr(arg.find(':') + 1);
    for (size_t pos = 0; pos < dims.size();) {
      size_t x = dims.find('x', pos);
      std::string d = dims.substr(pos, x == std::string::npos ? x : x - pos);
      char *end;
      long long v = std::strtoll(d.c_str(), &end, 10);
      if (d.empty() || *end || v < 0)
        die("bad dims in '" + arg + "'");
      w.dims.push_back(v);
      pos = x == std::string::npos ? dims.size() : x + 1;
    }
  } else {
    const Tensor *declared = nullptr;
    for (const Tensor &t : g.inputs)
      if (t.name == w.name)
        declared = &t;
    for (const Tensor &t : g.initializers) // an initializer's dims win
      if (t.name == w.name)
        declared = &t;
    if (!declared)
      die("'" + w.name + "' is not in the model; give its dims as " + w.name +
          ":D0xD1...");
    for (int64_t d : declared->dims)
      if (d < 0)
        die("'" + w.name + "' has dims " + dimsText(declared->dims) +
            "; give them as " + w.name + ":D0xD1...");
    w.dims = declared->dims;
  }
  uint64_t n = 1;
  for (int64_t d : w.dims) {
    if (d > 0 && n > (uint64_t(1) << 28) / uint64_t(d))
      die("'" + w.name + "' has dims " + dimsText(w.dims) +
          ": over 2^28 values, more than this tool writes");
    n *= uint64_t(d);
  }
  for (uint64_t k = 0; k < n; ++k)
    w.values.push_back(float(k % 16) / 8 - 1);
  return w;
}

} // namespace

int main(int argc, char **argv) {
  std::string model, out;
  bool all = false;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-o" && i + 1 < argc)
      out = argv[++i];
    else if (arg == "--all")
      all = true;
    else if (arg.rfind("-", 0) == 0)
      die("unknown option '" + arg + "'");
    else if (model.empty())
      model = arg;
    else
      names.push_back(arg);
  }
  if (model.empty() || (out.empty() && (all || !names.empty())))
    die("usage: hdrt-onnx-weights MODEL [-o OUT [--all] [NAME[:DIMS]]...]");

  Graph g;
  std::string error;
  if (!hdrt::onnx::readGraphFile(model, g, error))
    die(error);
  if (out.empty()) {
    print(g);
    return 0;
  }

  if (all) {
    std::set<std::string> inits;
    for (const Tensor &t : g.initializers) {
      inits.insert(t.name);
      if (t.dataType == hdrt::onnx::kFloat)
        names.push_back(t.name);
    }
    for (const Tensor &t : g.inputs) {
      bool isStatic = t.hasShape;
      for (int64_t d : t.dims)
        isStatic = isStatic && d >= 0;
      if (t.dataType == hdrt::onnx::kFloat && isStatic && !inits.count(t.name))
        names.push_back(t.name);
    }
  }
  std::vector<Tensor> weights;
  for (const std::string &name : names)
    weights.push_back(weightOf(name, g));

  std::ifstream in(model, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  if (!hdrt::onnx::writeModelWithWeights(bytes.data(), bytes.size(), weights,
                                         out, error))
    die(error);
  std::printf("wrote %s with %zu weights\n", out.c_str(), weights.size());
  return 0;
}
