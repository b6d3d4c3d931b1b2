//===- OnnxWeightsFuzzer.cpp - fuzz the runtime's ONNX weights ------------===//
//
// An input is a file given to a program as its ONNX model. The runtime's
// reader (hdrt/onnx/Weights.h) either accepts it or returns an error, and
// what it accepts must survive the export a program ends with: the model
// written back with every FLOAT initializer's values negated, and with an
// initializer added for each FLOAT input of static dims (the repository's
// models keep their weights as inputs), reads back with those values, and
// with its other initializers and its inputs as they were. Writing the
// written file again with no weights gives the same bytes.
//
//===----------------------------------------------------------------------===//

#include "hdrt/onnx/Weights.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using hdrt::onnx::Graph;
using hdrt::onnx::Tensor;

namespace {

std::string scratchDir;

void removeScratch() {
  if (scratchDir.empty())
    return;
  std::remove((scratchDir + "/model.onnx").c_str());
  ::rmdir(scratchDir.c_str());
}

[[noreturn]] void fail(const char *what, const std::string &detail) {
  std::fprintf(stderr, "%s: %s\n", what, detail.c_str());
  removeScratch();
  std::abort();
}

/// A file of this process's own to export to: on tmpfs where there is one,
/// where the export's fsync costs nothing.
const std::string &scratchFile() {
  static const std::string path = [] {
    struct stat st;
    const char *tmp = std::getenv("TMPDIR");
    std::string base = ::stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode)
                           ? "/dev/shm"
                       : tmp && *tmp ? tmp
                                     : "/tmp";
    std::string pattern = base + "/hd-onnx-weights-fuzzer-XXXXXX";
    if (!::mkdtemp(pattern.data()))
      fail("cannot make a scratch directory", pattern);
    scratchDir = pattern;
    std::atexit(removeScratch);
    return scratchDir + "/model.onnx";
  }();
  return path;
}

bool sameTensor(const Tensor &a, const Tensor &b) {
  return a.name == b.name && a.dataType == b.dataType && a.dims == b.dims &&
         a.hasData == b.hasData && a.hasShape == b.hasShape &&
         a.values.size() == b.values.size() &&
         (a.values.empty() || std::memcmp(a.values.data(), b.values.data(),
                                          4 * a.values.size()) == 0);
}

std::string describe(const Tensor &t) {
  std::string s =
      "'" + t.name + "' type " + std::to_string(t.dataType) + " dims";
  for (int64_t d : t.dims)
    s += " " + std::to_string(d);
  return s + " values " + std::to_string(t.values.size());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Graph graph;
  std::string error;
  if (!hdrt::onnx::readGraph(data, size, graph, error)) {
    if (error.empty())
      fail("readGraph failed without a message", "");
    return 0;
  }

  // The weights: each FLOAT initializer with data whose name no other
  // initializer has, its values negated (the sign bit flipped, so NaNs
  // keep their payload), then, as an export of a model whose weights are
  // inputs does, a ramp for each FLOAT input with static dims whose name
  // no initializer or other input has (within a budget of values).
  std::map<std::string, int> uses, inputUses;
  for (const Tensor &t : graph.initializers)
    ++uses[t.name];
  for (const Tensor &t : graph.inputs)
    ++inputUses[t.name];
  std::map<std::string, size_t> replaced; // name -> index in `weights`
  std::vector<Tensor> weights;
  for (const Tensor &t : graph.initializers) {
    if (!t.hasData || uses[t.name] != 1)
      continue;
    Tensor w = t;
    for (float &v : w.values) {
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      bits ^= 0x80000000u;
      std::memcpy(&v, &bits, 4);
    }
    replaced[w.name] = weights.size();
    weights.push_back(w);
  }
  size_t firstAdded = weights.size();
  uint64_t budget = 1 << 20;
  for (const Tensor &in : graph.inputs) {
    if (uses.count(in.name) || inputUses[in.name] != 1 || !in.hasShape ||
        (in.dataType != 0 && in.dataType != hdrt::onnx::kFloat))
      continue;
    uint64_t count = 1;
    for (int64_t d : in.dims)
      count = d < 0 || uint64_t(d) > budget
                  ? budget + 1
                  : std::min(count * uint64_t(d), budget + 1);
    if (count > budget)
      continue;
    budget -= count;
    Tensor w;
    w.name = in.name;
    w.dataType = hdrt::onnx::kFloat;
    w.dims = in.dims;
    w.hasData = w.hasShape = true;
    for (uint64_t i = 0; i < count; ++i)
      w.values.push_back(0.5f * float(i % 64) - 3.0f);
    weights.push_back(w);
  }

  const std::string &path = scratchFile();
  if (!hdrt::onnx::writeModelWithWeights(data, size, weights, path, error))
    fail("the export of a model that reads failed", error);
  Graph again;
  if (!hdrt::onnx::readGraphFile(path, again, error))
    fail("the exported model does not read", error);

  // The inputs as they were; the initializers with the new values, then
  // the added ones in order.
  if (again.inputs.size() != graph.inputs.size())
    fail("the export changed the inputs", "");
  for (size_t i = 0; i < graph.inputs.size(); ++i)
    if (!sameTensor(graph.inputs[i], again.inputs[i]))
      fail("the export changed an input", describe(again.inputs[i]));
  std::vector<Tensor> want;
  for (const Tensor &t : graph.initializers) {
    auto r = replaced.find(t.name);
    want.push_back(r == replaced.end() ? t : weights[r->second]);
  }
  want.insert(want.end(), weights.begin() + firstAdded, weights.end());
  if (again.initializers.size() != want.size())
    fail("the export wrote another number of initializers", "");
  for (size_t i = 0; i < want.size(); ++i)
    if (!sameTensor(want[i], again.initializers[i]))
      fail("an initializer does not read back as written",
           describe(want[i]) + " read back as " +
               describe(again.initializers[i]));

  // The written file is canonical for the writer: exported again with no
  // weights, it is the same bytes.
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    fail("cannot open the exported model", path);
  std::string written;
  char chunk[1 << 16];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0)
    written.append(chunk, n);
  std::fclose(f);
  std::string twice;
  if (!hdrt::onnx::encodeModelWithWeights(written.data(), written.size(), {},
                                          twice, error))
    fail("the exported model does not export", error);
  if (twice != written)
    fail("exporting the exported model with no weights changed it", "");
  return 0;
}
