//===- Network.cpp - the network as the generated code defines it ---------===//
//
// Each definition is checked as it arrives: layers and edges in order, a
// configuration within its shape and the device count, a descriptor of its
// kind's size, a transfer plan within the devices, replica groups that hold
// one parameter shard each.
//
//===----------------------------------------------------------------------===//

#include "Network.h"

#include "Errors.h"
#include "LayerImpl.h"

#include "hdrt/hdrt.h"

#include <cstring>

namespace hdrt::exec {

Network::Network(int64_t devices, std::string modelName, std::string modelHash)
    : devices_(devices), modelName_(std::move(modelName)),
      modelHash_(std::move(modelHash)) {}

Layer &Network::layer(int64_t id) {
  if (id < 0 || id >= static_cast<int64_t>(layers_.size()))
    throw Error("the program names layer " + std::to_string(id) +
                ", which it did not define");
  return layers_[id];
}

Edge &Network::edge(int64_t id) {
  if (id < 0 || id >= static_cast<int64_t>(edges_.size()))
    throw Error("the program names edge " + std::to_string(id) +
                ", which it did not define");
  return edges_[id];
}

void Network::defineLayer(int64_t id, LayerKind kind, std::string name,
                          int rank, const int64_t *shape,
                          const int64_t *degrees, int64_t operands,
                          const void *descriptor, int64_t bytes) {
  if (id != static_cast<int64_t>(layers_.size()))
    throw Error("layers must be defined in order: got " + std::to_string(id));
  if (rank < 1 || rank > 4 || operands < 1)
    throw Error("layer '" + name + "' has an unsupported shape");
  const LayerKindInfo &info = layerKindInfo(kind);
  if (bytes != info.descriptorBytes() || (bytes > 0 && !descriptor))
    throw Error("layer '" + name + "' has a " + std::to_string(bytes) +
                "-byte descriptor; a " + info.name + " takes " +
                std::to_string(info.descriptorBytes()));
  Layer &l = layers_.emplace_back();
  l.id = id;
  l.impl = &layerImpl(kind);
  l.name = std::move(name);
  l.out.rank = rank;
  int64_t tasks = 1;
  for (int d = 0; d < rank; ++d) {
    l.out.shape[d] = shape[d];
    l.out.degrees[d] = degrees[d];
    if (degrees[d] < 1 || degrees[d] > shape[d])
      throw Error("layer '" + l.name + "' has an illegal configuration");
    tasks *= degrees[d];
  }
  if (tasks > devices_)
    throw Error("layer '" + l.name + "' has " + std::to_string(tasks) +
                " tasks, more than the " + std::to_string(devices_) +
                " devices");
  l.descriptor.kind = kind;
  l.descriptor.words.resize(size_t(bytes) / 8);
  if (bytes > 0)
    std::memcpy(l.descriptor.words.data(), descriptor, size_t(bytes));
  l.inputs.assign(operands, nullptr);
}

void Network::defineEdge(int64_t id, int64_t consumer, int64_t operand,
                         int64_t producer, int rank, const int64_t *shape,
                         const int64_t *moves, int64_t moveCount) {
  if (id != static_cast<int64_t>(edges_.size()))
    throw Error("edges must be defined in order: got " + std::to_string(id));
  Layer &c = layer(consumer);
  if (operand < 0 || operand >= static_cast<int64_t>(c.inputs.size()) ||
      c.inputs[operand])
    throw Error("layer '" + c.name + "' has a bad operand " +
                std::to_string(operand));
  if (producer != HDRT_IMAGES && producer != HDRT_LABELS &&
      (producer < 0 || producer >= consumer))
    throw Error("layer '" + c.name + "' reads a tensor defined after it");
  Edge &e = edges_.emplace_back();
  e.id = id;
  e.consumer = &c;
  e.operand = static_cast<int>(operand);
  e.producer = producer;
  e.source.rank = rank;
  for (int d = 0; d < rank; ++d)
    e.source.shape[d] = shape[d];
  e.explicitTransfer = moves != nullptr;
  const int64_t stride = 2 + 2 * rank;
  for (int64_t m = 0; m < moveCount; ++m) {
    const int64_t *p = moves + m * stride;
    mpi::Move move;
    move.src = static_cast<int>(p[0]);
    move.dst = static_cast<int>(p[1]);
    move.box.rank = rank;
    for (int d = 0; d < rank; ++d) {
      move.box.lo[d] = p[2 + d];
      move.box.hi[d] = p[2 + rank + d];
    }
    if (move.src < 0 || move.src >= devices_ || move.dst < 0 ||
        move.dst >= devices_)
      throw Error("a transfer into '" + c.name + "' names a device outside " +
                  "0.." + std::to_string(devices_ - 1));
    e.plan.push_back(move);
  }
  c.inputs[operand] = &e;
  e.name = (producer >= 0
                ? layers_[producer].name
                : std::string(producer == HDRT_IMAGES ? "images" : "labels")) +
           " -> " + c.name;
  if (producer >= 0)
    ++layers_[producer].consumers;
}

void Network::defineGradSync(int64_t id, const int64_t *groups, int64_t length,
                             const SplitWorld &split) {
  Layer &l = layer(id);
  // Divide the world into the layer's replica groups; the other ranks are
  // in none. Every rank runs this in the same order.
  std::vector<int64_t> colorOfTask(size_t(l.out.tasks()), -1);
  int64_t group = 0;
  for (int64_t i = 0; i < length; ++group) {
    int64_t size = groups[i++];
    if (size < 1 || i + size > length)
      throw Error("layer '" + l.name + "' has malformed replica groups");
    int64_t channelBlock = -1;
    for (int64_t m = 0; m < size; ++m) {
      int64_t task = groups[i + m];
      if (task < 0 || task >= l.out.tasks())
        throw Error("a replica group of layer '" + l.name +
                    "' names a device without a task");
      if (colorOfTask[size_t(task)] >= 0)
        throw Error("a replica group of layer '" + l.name +
                    "' names a device that another group names");
      // Replicas hold the same parameter shard: the same channel block.
      int64_t block = l.out.blockOf(task, 1);
      if (channelBlock >= 0 && block != channelBlock)
        throw Error("a replica group of layer '" + l.name +
                    "' mixes different parameter shards");
      channelBlock = block;
      colorOfTask[size_t(task)] = group;
    }
    i += size;
  }
  if (l.gradComm != MPI_COMM_NULL)
    throw Error("layer '" + l.name + "' has two gradient syncs");
  l.gradComm = split ? split(colorOfTask) : MPI_COMM_NULL;
  if (l.gradComm == MPI_COMM_NULL)
    l.gradComm = MPI_COMM_SELF; // marks the layer as synced
}

void Network::defineTensors(int64_t id, const std::string &text) {
  Layer &l = layer(id);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    size_t tab = line.find('\t');
    if (tab == std::string::npos || tab == 0 || tab + 1 == line.size())
      throw Error("layer '" + l.name + "' names its source tensors badly: '" +
                  line + "'");
    std::string param = line.substr(0, tab), tensor = line.substr(tab + 1);
    bool transposed = false;
    if (size_t flag = tensor.find('\t'); flag != std::string::npos) {
      transposed = tensor.substr(flag + 1) == "transposed";
      if (!transposed)
        throw Error("layer '" + l.name + "' names its source tensors badly: '" +
                    line + "'");
      tensor.resize(flag);
    }
    l.sources[param] = {tensor, transposed};
  }
}

void Network::defineSource(const char *bytes, int64_t size) {
  if (size < 0 || (size > 0 && !bytes))
    throw Error("the program's source model is malformed");
  source_.assign(bytes, size_t(size));
}

std::pair<Box, Box> localBoxes(const Layer &p, const Edge &e) {
  if (e.block == 1)
    return {p.tile, e.box};
  return {channelBlocked(p.tile, e.block), channelBlocked(e.box, e.block)};
}

} // namespace hdrt::exec
