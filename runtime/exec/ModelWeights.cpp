//===- ModelWeights.cpp - weights in (--init) and out (--export-onnx) ----===//
//
// Training starts from the weights a user already has: an ONNX model's
// initializers, found through the source tensors the importer recorded for
// each layer, or an hd checkpoint of the same network under any strategy,
// device count or batch size. At the end the program writes its source
// ONNX model back with the trained weights, so PyTorch or any ONNX runtime
// can use them. Rank 0 reads and writes the files; the shards move with
// hdrt/mpi/GlobalTensors.h.
//
//===----------------------------------------------------------------------===//

#include "ModelIO.h"

#include "Errors.h"

#include "hdrt/onnx/Weights.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

namespace hdrt::exec {

namespace {

std::string shapeText(const std::vector<int64_t> &dims) {
  std::string s;
  for (int64_t d : dims)
    s += (s.empty() ? "" : "x") + std::to_string(d);
  return s.empty() ? "a scalar" : s;
}

int64_t volume(const std::vector<int64_t> &dims) {
  int64_t v = 1;
  for (int64_t d : dims)
    v *= d;
  return v;
}

/// Dims without the 1s: a bias may be stored as 1 x C.
std::vector<int64_t> squeezed(const std::vector<int64_t> &dims) {
  std::vector<int64_t> out;
  for (int64_t d : dims)
    if (d != 1)
      out.push_back(d);
  return out;
}

/// A rows x cols matrix as cols x rows.
std::vector<float> transposed(const std::vector<float> &m, int64_t rows,
                              int64_t cols) {
  std::vector<float> t(m.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      t[size_t(c * rows + r)] = m[size_t(r * cols + c)];
  return t;
}

/// How a parameter of `shape` (K x ...) is stored transposed: as the
/// matrix (elements per K) x K, as ONNX stores a Linear's or a MatMul's
/// weight that hd keeps as K x F (or as a 1x1 convolution's K x F x 1 x 1).
std::vector<int64_t> transposedDims(const std::vector<int64_t> &shape) {
  int64_t k = shape.empty() ? 1 : shape[0];
  return {volume(shape) / k, k};
}

/// Whether `path` starts as an hd checkpoint; false with `error` set when
/// it cannot be read.
bool isCheckpoint(const std::string &path, std::string &error) {
  char magic[8] = {};
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    error = std::string("cannot read it: ") + std::strerror(errno);
    return false;
  }
  size_t got = std::fread(magic, 1, sizeof(magic), f);
  std::fclose(f);
  return got == sizeof(magic) && std::memcmp(magic, "HDCKPT1\n", 8) == 0;
}

} // namespace

void ModelIO::initWeights() {
  if (options_.init.empty())
    return;
  std::vector<std::vector<float>> host;
  std::vector<mpi::Shard> shards =
      stageShards(host, /*download=*/false, /*momentum=*/false);
  std::vector<std::vector<float>> tensors(shards.size());
  std::string error;
  const std::string &path = options_.init;
  if (rank_ == 0) {
    bool checkpoint = isCheckpoint(path, error);
    if (error.empty())
      error = checkpoint ? weightsFromCheckpoint(shards, tensors)
                         : weightsFromOnnx(tensors);
  }
  agree(error.empty(), "cannot initialize from '" + path + "': " + error);
  mpi::scatterTensors(MPI_COMM_WORLD, tensors, shards);
  size_t next = 0;
  for (Layer &l : network_.layers())
    for (Param &p : l.params)
      p.value.upload(host[next++].data());
  if (rank_ == 0 && !options_.quiet)
    std::printf("initialized %zu tensors from %s\n", shards.size(),
                path.c_str());
}

/// Rank 0: the tensors of an hd checkpoint, by name and exact shape; its
/// momentum is left out (a new run starts its own). Returns the error.
std::string
ModelIO::weightsFromCheckpoint(const std::vector<mpi::Shard> &shards,
                               std::vector<std::vector<float>> &tensors) {
  mpi::CheckpointFile file;
  std::string error;
  if (!mpi::loadCheckpointFile(options_.init, file, error))
    return error;
  std::map<std::string, size_t> byName;
  for (size_t i = 0; i < file.names.size(); ++i)
    byName[file.names[i]] = i;
  std::set<std::string> used;
  for (size_t i = 0; i < shards.size(); ++i) {
    const mpi::Shard &s = shards[i];
    auto found = byName.find(s.name);
    if (found == byName.end())
      return "the checkpoint has no tensor '" + s.name + "'";
    if (file.shapes[found->second] != s.shape)
      return "its tensor '" + s.name + "' is " +
             shapeText(file.shapes[found->second]) + "; this model's is " +
             shapeText(s.shape);
    tensors[i] = std::move(file.tensors[found->second]);
    used.insert(s.name);
  }
  for (const std::string &name : file.names)
    if (!used.count(name) &&
        !(name.size() > 9 &&
          name.compare(name.size() - 9, 9, ".momentum") == 0))
      return "it holds '" + name +
             "', which this model does not have (a checkpoint of another "
             "network?)";
  return "";
}

/// Rank 0: each parameter's initializer in an ONNX model, under the name
/// the importer recorded. Returns the error.
std::string ModelIO::weightsFromOnnx(std::vector<std::vector<float>> &tensors) {
  onnx::Graph graph, source;
  std::string error;
  if (!onnx::readGraphFile(options_.init, graph, error))
    return "neither an hd checkpoint nor an ONNX model: " + error;
  std::map<std::string, const onnx::Tensor *> initializers;
  for (const onnx::Tensor &t : graph.initializers)
    initializers[t.name] = &t;
  std::set<std::string> used;
  size_t next = 0;
  for (const Layer &l : network_.layers())
    for (const Param &p : l.params) {
      auto src = l.sources.find(p.suffix);
      if (src == l.sources.end())
        return "the program does not know which tensor holds '" + p.name +
               "': --init with an ONNX model needs a program compiled from "
               "one (hd-opt --import-onnx)";
      const auto &[tensorName, isTransposed] = src->second;
      auto found = initializers.find(tensorName);
      if (found == initializers.end() || !found->second->hasData)
        return "it has no initializer '" + tensorName + "' with data (the " +
               p.suffix + " of layer '" + l.name + "')";
      const onnx::Tensor &t = *found->second;
      if (t.dataType != onnx::kFloat)
        return "its initializer '" + tensorName + "' is not float32";
      std::vector<int64_t> want = p.shape;
      if (isTransposed)
        want = transposedDims(p.shape);
      if (squeezed(t.dims) != squeezed(want))
        return "its initializer '" + tensorName + "' is " + shapeText(t.dims) +
               "; the " + p.suffix + " of layer '" + l.name + "' is " +
               shapeText(want);
      tensors[next++] =
          isTransposed ? transposed(t.values, want[0], want[1]) : t.values;
      used.insert(tensorName);
    }
  // Weights the compiled model does not have mean the file is of another
  // network: starting half-initialized would be silent.
  if (!onnx::readGraph(network_.source().data(), network_.source().size(),
                       source, error))
    return "the program's own source model: " + error;
  std::set<std::string> known;
  for (const onnx::Tensor &t : source.initializers)
    known.insert(t.name);
  for (const onnx::Tensor &t : source.inputs)
    known.insert(t.name);
  for (const onnx::Tensor &t : graph.initializers)
    if (t.dataType == onnx::kFloat && !used.count(t.name) &&
        !known.count(t.name))
      return "it has the weight '" + t.name +
             "', which the compiled model does not have (an export of "
             "another network?)";
  return "";
}

/// The dims the source model gives its tensors (inputs and initializers):
/// the exported weights keep them.
std::map<std::string, std::vector<int64_t>>
ModelIO::sourceDims(std::string &error) const {
  std::map<std::string, std::vector<int64_t>> dims;
  onnx::Graph source;
  if (!onnx::readGraph(network_.source().data(), network_.source().size(),
                       source, error))
    return dims;
  for (const onnx::Tensor &t : source.inputs)
    if (t.hasShape)
      dims[t.name] = t.dims;
  for (const onnx::Tensor &t : source.initializers)
    dims[t.name] = t.dims;
  return dims;
}

void ModelIO::checkExport() const {
  if (options_.exportOnnx.empty())
    return;
  std::string error;
  if (network_.source().empty())
    error = "--export-onnx needs a program compiled from an ONNX model; this "
            "one has no source model";
  std::map<std::string, std::vector<int64_t>> dims;
  if (error.empty())
    dims = sourceDims(error);
  // Before the first step, not after the last: a tensor the source model
  // declares with another element count could not be written back.
  for (const Layer &l : network_.layers())
    for (const Param &p : l.params) {
      if (!error.empty())
        break;
      auto src = l.sources.find(p.suffix);
      if (src == l.sources.end()) {
        error = "--export-onnx: the program does not know which tensor of "
                "its source model holds '" +
                p.name + "'";
        break;
      }
      auto d = dims.find(src->second.first);
      if (d != dims.end() && volume(d->second) != volume(p.shape))
        error = "--export-onnx: the source model's tensor '" +
                src->second.first + "' is " + shapeText(d->second) +
                ", which cannot hold '" + p.name + "' (" + shapeText(p.shape) +
                ")";
    }
  if (!error.empty())
    throw CollectiveError(error);
}

void ModelIO::exportOnnx() {
  if (options_.exportOnnx.empty())
    return;
  std::vector<std::vector<float>> host, tensors;
  std::vector<mpi::Shard> shards =
      stageShards(host, /*download=*/true, /*momentum=*/false);
  std::string error;
  if (!mpi::gatherTensors(MPI_COMM_WORLD, shards, tensors, error))
    throw CollectiveError("cannot export the weights: " + error);
  if (rank_ == 0) {
    // Each tensor keeps the dims the source model gives it (checkExport
    // made sure they hold it).
    std::map<std::string, std::vector<int64_t>> dims = sourceDims(error);
    std::vector<onnx::Tensor> weights;
    size_t next = 0;
    for (const Layer &l : network_.layers())
      for (const Param &p : l.params) {
        const auto &[name, isTransposed] = l.sources.at(p.suffix);
        onnx::Tensor &w = weights.emplace_back();
        w.name = name;
        w.dataType = onnx::kFloat;
        w.hasData = w.hasShape = true;
        std::vector<float> &v = tensors[next++];
        w.dims = isTransposed ? transposedDims(p.shape) : p.shape;
        w.values =
            isTransposed ? transposed(v, w.dims[1], w.dims[0]) : std::move(v);
        if (auto d = dims.find(name); d != dims.end())
          w.dims = d->second;
      }
    if (error.empty())
      onnx::writeModelWithWeights(network_.source().data(),
                                  network_.source().size(), weights,
                                  options_.exportOnnx, error);
  }
  agree(error.empty(), "cannot export the trained model to '" +
                           options_.exportOnnx + "': " + error);
  if (rank_ == 0 && !options_.quiet)
    std::printf("exported the trained model to %s\n",
                options_.exportOnnx.c_str());
}

} // namespace hdrt::exec
