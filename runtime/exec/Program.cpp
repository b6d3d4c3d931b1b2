//===- Program.cpp - definitions, buffers and the step around the layers --===//

#include "Program.h"

#include "Data.h"

#include "hdrt/Random.h"
#include "hdrt/cpu/TileOps.h"
#include "hdrt/hdrt.h"
#include "hdrt/mpi/Checkpoint.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace hdrt::exec {

namespace {

std::string boxText(const Box &b) {
  std::string s = "[";
  for (int d = 0; d < b.rank; ++d)
    s += (d ? ", " : "") + std::to_string(b.lo[d]) + ":" +
         std::to_string(b.hi[d]);
  return s + "]";
}


} // namespace

uint64_t streamOf(Stream kind, uint64_t a, uint64_t b) {
  return mix64((uint64_t(kind) << 56) ^ (a << 24) ^ b);
}

//===----------------------------------------------------------------------===//
// Partition
//===----------------------------------------------------------------------===//

int64_t Partition::tasks() const {
  int64_t t = 1;
  for (int d = 0; d < rank; ++d)
    t *= degrees[d];
  return t;
}

int64_t Partition::blockOf(int64_t task, int dim) const {
  for (int d = rank - 1; d > dim; --d)
    task /= degrees[d];
  return task % degrees[dim];
}

Box Partition::tile(int64_t task) const {
  Box b;
  b.rank = rank;
  for (int d = 0; d < rank; ++d) {
    int64_t i = blockOf(task, d), k = degrees[d];
    int64_t base = shape[d] / k, extra = shape[d] % k;
    b.lo[d] = i * base + std::min(i, extra);
    b.hi[d] = b.lo[d] + base + (i < extra ? 1 : 0);
  }
  return b;
}

//===----------------------------------------------------------------------===//
// Definitions
//===----------------------------------------------------------------------===//

Program::Program(Options options, int64_t devices, std::string modelName,
                 std::string modelHash, std::shared_ptr<Device> device)
    : options_(std::move(options)), device_(std::move(device)),
      devices_(devices), modelName_(std::move(modelName)),
      modelHash_(std::move(modelHash)) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  try {
    if (!device_)
      device_ = makeDevice(options_.device);
  } catch (const DeviceError &e) {
    // Every rank finds the same machine (no GPU, no driver).
    throw CollectiveError(e.what());
  }
  // Per-category times of an asynchronous device need waits at every
  // boundary; only runs that report them pay for those.
  if (!device_->hostAccessible() &&
      (!options_.metrics.empty() || !options_.trace.empty()))
    timers_.fenced = device_.get();
}

/// Splits the world into the communicators of groups; `color` is the group
/// of this rank or MPI_UNDEFINED. Collective over every rank.
MPI_Comm Program::split(int color, int key) {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, color, key, &comm);
  device_->groupCreated(comm, color, key);
  return comm;
}

Layer &Program::layer(int64_t id) {
  if (id < 0 || id >= static_cast<int64_t>(layers_.size()))
    throw Error("the program names layer " + std::to_string(id) +
                ", which it did not define");
  return layers_[id];
}

Edge &Program::edge(int64_t id) {
  if (id < 0 || id >= static_cast<int64_t>(edges_.size()))
    throw Error("the program names edge " + std::to_string(id) +
                ", which it did not define");
  return edges_[id];
}

void Program::defineLayer(int64_t id, Kind kind, std::string name, int rank,
                          const int64_t *shape, const int64_t *degrees,
                          int64_t operands, const int64_t *attrs,
                          int64_t attrCount, double float0, double float1) {
  if (id != static_cast<int64_t>(layers_.size()))
    throw Error("layers must be defined in order: got " + std::to_string(id));
  if (rank < 1 || rank > 4 || operands < 1)
    throw Error("layer '" + name + "' has an unsupported shape");
  Layer &l = layers_.emplace_back();
  l.id = id;
  l.kind = kind;
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
  l.attrs.assign(attrs, attrs + attrCount);
  l.float0 = float0;
  l.float1 = float1;
  l.inputs.assign(operands, nullptr);
}

void Program::defineEdge(int64_t id, int64_t consumer, int64_t operand,
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
  e.name = (producer >= 0 ? layers_[producer].name
                          : std::string(producer == HDRT_IMAGES ? "images"
                                                                : "labels")) +
           " -> " + c.name;
  if (producer >= 0)
    ++layers_[producer].consumers;
}

void Program::defineGradSync(int64_t id, const int64_t *groups,
                             int64_t length) {
  Layer &l = layer(id);
  // Split the world into the layer's replica groups; the other ranks get no
  // communicator. Every rank runs this in the same order.
  int color = MPI_UNDEFINED, group = 0;
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
      // Replicas hold the same parameter shard: the same channel block.
      int64_t block = l.out.blockOf(task, 1);
      if (channelBlock >= 0 && block != channelBlock)
        throw Error("a replica group of layer '" + l.name +
                    "' mixes different parameter shards");
      channelBlock = block;
      if (task == rank_)
        color = group;
    }
    i += size;
  }
  if (l.gradComm != MPI_COMM_NULL)
    throw Error("layer '" + l.name + "' has two gradient syncs");
  l.gradComm = profiling_ ? MPI_COMM_NULL : split(color, rank_);
  if (l.gradComm == MPI_COMM_NULL)
    l.gradComm = MPI_COMM_SELF; // marks the layer as synced
}

//===----------------------------------------------------------------------===//
// Preparation: geometry, buffers, communicators, parameters
//===----------------------------------------------------------------------===//

void Program::prepare() {
  if (layers_.empty())
    throw Error("the program defines no layers");
  for (Layer &l : layers_)
    for (size_t i = 0; i < l.inputs.size(); ++i)
      if (!l.inputs[i])
        throw Error("operand " + std::to_string(i) + " of layer '" + l.name +
                    "' is not defined");
  const Layer &loss = layers_.back();
  if (loss.kind != Kind::SoftmaxCrossEntropy && !profiling_)
    throw Error("the program must end with its loss layer");
  batch_ = loss.out.shape[0];
  for (Layer &l : layers_)
    prepareLayer(l);
  for (Edge &e : edges_)
    prepareEdge(e);
  checkOutputs();
  if (options_.resume)
    resume();
  timers_.take();
}

/// Rank 0's verdict on something every rank must agree on; throws it on
/// every rank.
static void agreeOrThrow(bool ok, std::string message) {
  int flag = ok, length = static_cast<int>(message.size());
  MPI_Bcast(&flag, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  message.resize(length);
  if (length)
    MPI_Bcast(message.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (!flag)
    throw CollectiveError(message);
}

/// Finds out before training, not after it, that a result cannot be
/// written: the checkpoint directory (created when missing) and the
/// metrics and trace files.
void Program::checkOutputs() {
  bool ok = true;
  std::string message;
  if (rank_ == 0) {
    // The probe has a name of its own: the checkpoint's temporary file may
    // be something the probe must not remove.
    auto writable = [&](const std::string &path, const char *what) {
      std::string probe = path + ".probe";
      FILE *f = std::fopen(probe.c_str(), "w");
      if (!f) {
        message = std::string("cannot write the ") + what + " '" + path +
                  "': " + std::strerror(errno);
        return false;
      }
      std::fclose(f);
      std::remove(probe.c_str());
      return true;
    };
    if (!options_.checkpoint.empty()) {
      if (::mkdir(options_.checkpoint.c_str(), 0777) != 0 && errno != EEXIST) {
        ok = false;
        message = "cannot create the checkpoint directory '" +
                  options_.checkpoint + "': " + std::strerror(errno);
      } else {
        ok = writable(options_.checkpoint + "/checkpoint.hd",
                      "checkpoint directory's file");
      }
    }
    if (ok && !options_.metrics.empty())
      ok = writable(options_.metrics, "metrics file");
    if (ok && !options_.trace.empty())
      ok = writable(options_.trace, "trace file");
  }
  agreeOrThrow(ok, message);
}

void Program::prepareLayer(Layer &l) {
  if (rank_ < l.out.tasks()) {
    l.task = rank_;
    l.tile = l.out.tile(l.task);
  }
  const Partition &in = l.inputs[0]->source;
  auto attr = [&](size_t i) {
    if (i >= l.attrs.size())
      throw Error("layer '" + l.name + "' lacks attributes");
    return l.attrs[i];
  };
  // A groups' communicator for the layer-internal reductions: batch norm
  // sums over the tasks sharing its channels, the loss over those sharing
  // its samples.
  if (!profiling_ &&
      (l.kind == Kind::BatchNorm || l.kind == Kind::SoftmaxCrossEntropy)) {
    int dim = l.kind == Kind::BatchNorm ? 1 : 0;
    l.statsComm = split(l.task >= 0 ? int(l.out.blockOf(l.task, dim))
                                    : MPI_UNDEFINED,
                        rank_);
  }
  int64_t paramChannels = 0;
  std::vector<int64_t> weightShape;
  bool bias = false;
  switch (l.kind) {
  case Kind::Conv2d: {
    cpu::Conv2dLayer c{in.shape[0], in.shape[1], in.shape[2], in.shape[3],
                       attr(0),     attr(1),     attr(2),     attr(3),
                       attr(4),     attr(5),     attr(6),     attr(7),
                       attr(8),     attr(9),     attr(10),    attr(11)};
    if (c.outH() != l.out.shape[2] || c.outW() != l.out.shape[3])
      throw Error("layer '" + l.name + "': output shape does not match " +
                  "its window");
    if (l.task >= 0)
      l.conv = cpu::convTile(c, l.tile);
    paramChannels = c.k;
    weightShape = {c.k, c.c / c.groups, c.kh, c.kw};
    bias = attr(12) != 0;
    break;
  }
  case Kind::Pool2d: {
    cpu::Pool2dLayer p;
    p.max = attr(0) != 0;
    p.countIncludePad = attr(10) != 0;
    p.window = {in.shape[0], in.shape[1], in.shape[2], in.shape[3],
                attr(1),     attr(2),     attr(3),     attr(4),
                attr(5),     attr(6),     attr(7),     attr(8),
                1,           1};
    // Ceil mode: the last window may overhang the bottom and right edges.
    int64_t extraH = (l.out.shape[2] - 1) * p.window.strideH + p.window.kh -
                     (p.window.h + p.window.padTop + p.window.padBottom);
    int64_t extraW = (l.out.shape[3] - 1) * p.window.strideW + p.window.kw -
                     (p.window.w + p.window.padLeft + p.window.padRight);
    if ((extraH > 0 || extraW > 0) && !p.max && p.countIncludePad)
      throw Error("layer '" + l.name + "': average pooling with ceil_mode " +
                  "and count_include_pad is not supported by the CPU runtime");
    p.window.padBottom += std::max<int64_t>(extraH, 0);
    p.window.padRight += std::max<int64_t>(extraW, 0);
    if (p.window.outH() != l.out.shape[2] || p.window.outW() != l.out.shape[3])
      throw Error("layer '" + l.name + "': output shape does not match " +
                  "its window");
    if (l.task >= 0)
      l.pool = cpu::poolTile(p, l.tile);
    break;
  }
  case Kind::Linear:
    paramChannels = attr(0);
    weightShape = {attr(0), in.shape[1]};
    bias = attr(1) != 0;
    break;
  case Kind::BatchNorm:
    paramChannels = l.out.shape[1];
    break;
  default:
    break;
  }

  if (l.task >= 0 && l.kind != Kind::SoftmaxCrossEntropy) {
    l.value.assign(*device_, l.tile.volume());
    l.grad.assign(*device_, l.tile.volume());
  }
  if (l.task >= 0 && l.kind == Kind::BatchNorm) {
    int64_t c = l.tile.hi[1] - l.tile.lo[1];
    l.sums.assign(*device_, 2 * c);
    l.mean.assign(*device_, c);
    l.invStd.assign(*device_, c);
  }
  if (l.task >= 0 && l.kind == Kind::SoftmaxCrossEntropy) {
    int64_t n = l.tile.hi[0] - l.tile.lo[0];
    l.max.assign(*device_, n);
    l.sum.assign(*device_, n);
  }
  if (paramChannels) {
    // A shard is this task's output channels; replicas along n, h and w
    // hold the same one and the first of them checkpoints it.
    int64_t c0 = l.task >= 0 ? l.tile.lo[1] : 0;
    int64_t c1 = l.task >= 0 ? l.tile.hi[1] : 0;
    bool first = l.task >= 0;
    for (int d = 0; d < l.out.rank && first; ++d)
      if (d != 1 && l.out.blockOf(l.task, d) != 0)
        first = false;
    auto addParam = [&](std::string suffix, std::vector<int64_t> shape) {
      Param &p = l.params.emplace_back();
      // Checkpoint names are whitespace-free words.
      p.name = l.name + "." + suffix;
      for (char &ch : p.name)
        if (std::isspace(static_cast<unsigned char>(ch)))
          ch = '_';
      p.shape = std::move(shape);
      if (l.task >= 0) {
        p.box.rank = static_cast<int>(p.shape.size());
        for (int d = 0; d < p.box.rank; ++d)
          p.box.hi[d] = p.shape[d];
        p.box.lo[0] = c0;
        p.box.hi[0] = c1;
        p.value.assign(*device_, p.box.volume());
        p.grad.assign(*device_, p.box.volume());
        p.velocity.assign(*device_, p.box.volume());
      }
      p.writes = first;
    };
    if (l.kind == Kind::BatchNorm) {
      addParam("scale", {paramChannels});
      addParam("shift", {paramChannels});
    } else {
      addParam("weight", weightShape);
      if (bias)
        addParam("bias", {paramChannels});
    }
    initParams(l);
    int64_t replicas = l.out.tasks() / l.out.degrees[1];
    if (replicas > 1 && l.gradComm == MPI_COMM_NULL && !profiling_)
      throw Error("the parameters of layer '" + l.name + "' have " +
                  std::to_string(replicas) +
                  " replicas but the program never syncs their gradients " +
                  "(run --hd-insert-transfers before lowering)");
  }
}

void Program::initParams(Layer &l) {
  if (l.task < 0)
    return;
  // The fan-in of an output channel: one row of the weight.
  int64_t fanIn = 1;
  for (size_t d = 1; d < l.params[0].shape.size(); ++d)
    fanIn *= l.params[0].shape[d];
  for (size_t i = 0; i < l.params.size(); ++i) {
    Param &p = l.params[i];
    int64_t row = 1;
    for (size_t d = 1; d < p.shape.size(); ++d)
      row *= p.shape[d];
    // PyTorch's default for convolutions and linear layers (uniform in
    // +-1/sqrt(fan-in) for weights and bias); batch norm starts as the
    // identity.
    float bound = 0, offset = 0;
    if (l.kind == Kind::BatchNorm)
      offset = i == 0 ? 1.0f : 0.0f;
    else
      bound = 1.0f / std::sqrt(float(fanIn));
    uint64_t stream = streamOf(kWeights, l.id, i);
    int64_t first = p.box.lo[0] * row;
    std::vector<float> host(size_t(p.value.size()));
    for (size_t j = 0; j < host.size(); ++j)
      host[j] =
          offset +
          bound * (2.0f * uniform(options_.seed, stream, first + j) - 1.0f);
    p.value.upload(host.data());
  }
}

void Program::prepareEdge(Edge &e) {
  Layer &c = *e.consumer;
  // What this device sends must be in its producer tile.
  for (const mpi::Move &m : e.plan) {
    const Layer &p = layers_[e.producer];
    if (m.src == rank_ && (p.task < 0 || !p.tile.contains(m.box)))
      throw Error("the transfer from '" + p.name + "' sends " +
                  boxText(m.box) + " from device " + std::to_string(rank_) +
                  ", which does not hold it");
  }
  if (c.task < 0) {
    for (const mpi::Move &m : e.plan)
      if (m.dst == rank_)
        throw Error("a transfer into '" + c.name +
                    "' sends to a device without a task");
    return;
  }
  const Box &t = c.tile;
  Box &b = e.box;
  b.rank = e.source.rank;
  for (int d = 0; d < b.rank; ++d)
    b.hi[d] = e.source.shape[d];
  switch (c.kind) {
  case Kind::Conv2d:
    b = c.conv.in;
    break;
  case Kind::Pool2d:
    b = c.pool.in;
    break;
  case Kind::Linear:
    b.lo[0] = t.lo[0];
    b.hi[0] = t.hi[0];
    break;
  case Kind::Concat: {
    for (int i = 0; i < e.operand; ++i)
      e.channelOffset += c.inputs[i]->source.shape[1];
    int64_t offset = e.channelOffset;
    b = t;
    b.lo[1] = std::clamp(t.lo[1] - offset, int64_t(0), e.source.shape[1]);
    b.hi[1] = std::clamp(t.hi[1] - offset, b.lo[1], e.source.shape[1]);
    break;
  }
  case Kind::Flatten: {
    int64_t hw = e.source.shape[2] * e.source.shape[3];
    b.lo[0] = t.lo[0];
    b.hi[0] = t.hi[0];
    b.lo[1] = t.lo[1] / hw;
    b.hi[1] = (t.hi[1] + hw - 1) / hw;
    break;
  }
  case Kind::SoftmaxCrossEntropy:
    if (e.operand == 1) {
      b.lo[0] = t.lo[0];
      b.hi[0] = t.hi[0];
    } else {
      b = t;
    }
    break;
  default: // elementwise: the same box
    b = t;
    break;
  }
  // Loops over n, c, h, w see one row and column in a 2-D tensor.
  for (int d = b.rank; d < 4; ++d) {
    b.lo[d] = 0;
    b.hi[d] = 1;
  }
  e.hasBox = b.volume() > 0;
  if (e.producer >= 0)
    checkPlan(e);
  if (!e.hasBox)
    return;
  if (e.producer == HDRT_LABELS) {
    e.labels.assign(b.volume(), 0);
    e.deviceLabels.assign(*device_, b.volume());
    return;
  }
  if (e.producer == HDRT_IMAGES) {
    e.inStorage.assign(*device_, b.volume());
    e.in = e.inStorage.data();
    if (e.wantsGradient) {
      e.dInStorage.assign(*device_, b.volume());
      e.dIn = e.dInStorage.data();
    }
    return;
  }
  Layer &p = layers_[e.producer];
  // Read the producer's tile in place when it is exactly the box and
  // nothing else reads it; else keep a copy of the box.
  e.aliased = !e.explicitTransfer && p.consumers == 1 && p.task >= 0 &&
              sameBox(p.tile, b);
  if (e.aliased) {
    e.in = p.value.data();
    e.dIn = p.grad.data();
  } else {
    e.inStorage.assign(*device_, b.volume());
    e.dInStorage.assign(*device_, b.volume());
    e.in = e.inStorage.data();
    e.dIn = e.dInStorage.data();
  }
}

/// The compiled plan and this runtime's boxes must agree: the input box is
/// exactly what this device holds of it plus what the plan sends here, in
/// disjoint pieces (else a transfer would write outside its buffer or leave
/// a hole).
void Program::checkPlan(const Edge &e) const {
  const Layer &c = *e.consumer, &p = layers_[e.producer];
  const Box &b = e.box;
  std::vector<Box> pieces;
  if (p.task >= 0 && e.hasBox)
    if (Box local = intersect(p.tile, b); local.volume() > 0)
      pieces.push_back(local);
  for (const mpi::Move &m : e.plan)
    if (m.dst == rank_) {
      if (!e.hasBox || !b.contains(m.box))
        throw Error("the transfer into '" + c.name + "' sends " +
                    boxText(m.box) + " to device " + std::to_string(rank_) +
                    ", outside its input box " + boxText(b));
      pieces.push_back(m.box);
    }
  int64_t covered = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    covered += pieces[i].volume();
    for (size_t j = 0; j < i; ++j)
      if (Box twice = intersect(pieces[i], pieces[j]); twice.volume() > 0)
        throw Error("the input box " + boxText(b) + " of '" + c.name +
                    "' on device " + std::to_string(rank_) + " gets " +
                    boxText(twice) + " twice");
  }
  int64_t needed = e.hasBox ? b.volume() : 0;
  if (covered != needed)
    throw Error("the input box " + boxText(b) + " of '" + c.name +
                "' on device " + std::to_string(rank_) + " gets " +
                std::to_string(covered) + " of its " +
                std::to_string(needed) + " elements from '" + p.name + "'" +
                (e.explicitTransfer ? std::string("")
                                    : " (is an hd.transfer missing?)"));
}

//===----------------------------------------------------------------------===//
// The step
//===----------------------------------------------------------------------===//

void Program::stepBegin(int64_t step) {
  if (rank_ == options_.killRank && step + 1 == options_.killStep) {
    std::fprintf(stderr, "hd: test hook: rank %d kills itself at step %lld\n",
                 rank_, static_cast<long long>(step + 1));
    std::fflush(stderr);
    std::raise(SIGKILL);
  }
  step_ = step;
  stepStart_ = MPI_Wtime();
  timers_.take();
  // --trace records the last step, when the kernels are warm.
  timers_.tracing = !options_.trace.empty() && step + 1 == options_.steps;
  timers_.origin = stepStart_;
  timers_.spans.clear();
  Charge charge(timers_, Category::Compute);
  stepInputs(step);
}

void Program::stepInputs(int64_t step) {
  for (Edge &e : edges_)
    if (e.hasBox && e.producer < 0 && !e.wantsGradient)
      fillInput(e, step);
  for (Layer &l : layers_)
    device_->fill(l.grad.data(), l.grad.size(), 0.0f);
}

/// Synthetic data that can be learned: sample n of step s has a uniform
/// random label, and its image is that class's fixed random prototype plus
/// as much uniform noise. Every number is keyed by global indices.
int64_t Program::syntheticLabel(int64_t step, int64_t sample) const {
  int64_t classes = layers_.back().out.shape[1];
  float u = uniform(options_.seed, streamOf(kLabels, step), sample);
  return std::min<int64_t>(classes - 1, int64_t(u * classes));
}

void Program::fillInput(Edge &e, int64_t step) {
  const Box &b = e.box;
  if (e.producer == HDRT_LABELS) {
    if (!options_.data.empty())
      readLabels(options_.data, layers_.front().inputs[0]->source, step, b,
                 e.labels.data());
    else
      for (int64_t n = b.lo[0]; n < b.hi[0]; ++n)
        e.labels[n - b.lo[0]] = static_cast<int32_t>(syntheticLabel(step, n));
    e.deviceLabels.upload(e.labels.data());
    return;
  }
  // Images are made on the host: in place when the device is the host,
  // else in a staging buffer copied over once.
  std::vector<float> staging;
  float *out = e.in;
  if (!device_->hostAccessible()) {
    staging.resize(size_t(b.volume()));
    out = staging.data();
  }
  if (!options_.data.empty())
    readImages(options_.data, e.source, step, b, out);
  else
    syntheticImages(e, step, out);
  if (!staging.empty())
    e.inStorage.upload(staging.data());
}

void Program::syntheticImages(const Edge &e, int64_t step, float *out) const {
  const Box &b = e.box;
  uint64_t noise = streamOf(kImages, step), prototypes = streamOf(kPrototypes, 0);
  const int64_t *s = e.source.shape;
  int64_t sample = s[1] * s[2] * s[3];
  for (int64_t n = b.lo[0]; n < b.hi[0]; ++n) {
    int64_t label = syntheticLabel(step, n);
    for (int64_t c = b.lo[1]; c < b.hi[1]; ++c)
      for (int64_t y = b.lo[2]; y < b.hi[2]; ++y) {
        int64_t offset = (c * s[2] + y) * s[3];
        for (int64_t x = b.lo[3]; x < b.hi[3]; ++x) {
          float p = uniform(options_.seed, prototypes,
                            label * sample + offset + x);
          float u = uniform(options_.seed, noise, n * sample + offset + x);
          *out++ = (2.0f * p - 1.0f) + (2.0f * u - 1.0f);
        }
      }
  }
}

void Program::fillForProfile() {
  // stepInputs loads the real graph inputs; the stand-ins once, here.
  for (Edge &e : edges_)
    if (e.hasBox && e.producer < 0 && e.wantsGradient)
      fillInput(e, 0);
  stepInputs(0);
  for (Layer &l : layers_) {
    std::vector<float> host(size_t(l.grad.size()));
    for (size_t i = 0; i < host.size(); ++i)
      host[i] = 2.0f * uniform(options_.seed, streamOf(kImages, 1), i) - 1.0f;
    l.grad.upload(host.data());
  }
}

void Program::gatherLocal(Edge &e) {
  if (!e.hasBox || e.aliased || e.explicitTransfer || e.producer < 0)
    return;
  const Layer &p = layers_[e.producer];
  device_->copyRegion(p.value.data(), p.tile, e.in, e.box, e.box);
}

void Program::scatterLocal(Edge &e) {
  if (!e.hasBox || e.aliased || e.explicitTransfer || e.producer < 0)
    return;
  Layer &p = layers_[e.producer];
  device_->addRegion(e.dIn, e.box, p.grad.data(), p.tile, e.box);
}

void Program::transferForward(int64_t id) {
  Edge &e = edge(id);
  activity_ = "the transfer '" + e.name + "'";
  Charge charge(timers_, Category::Transfer, &e.name);
  const Layer *p = e.producer >= 0 ? &layers_[e.producer] : nullptr;
  if (!p || !e.explicitTransfer)
    throw Error("edge " + std::to_string(id) + " is not a transfer");
  mpi::Side side{p->task >= 0 ? &p->tile : nullptr,
                 e.hasBox ? &e.box : nullptr};
  if (int rc = device_->exchangeForward(MPI_COMM_WORLD, e.plan, side,
                                       p->value.data(), e.in))
    throw Error("error " + std::to_string(rc) + " in the transfer '" +
                p->name + " -> " + e.consumer->name + "'");
}

void Program::transferBackward(int64_t id) {
  Edge &e = edge(id);
  activity_ = "the backward transfer '" + e.name + "'";
  Charge charge(timers_, Category::Transfer, &e.name, " (backward)");
  Layer *p = e.producer >= 0 ? &layers_[e.producer] : nullptr;
  if (!p || !e.explicitTransfer)
    throw Error("edge " + std::to_string(id) + " is not a transfer");
  mpi::Side side{p->task >= 0 ? &p->tile : nullptr,
                 e.hasBox ? &e.box : nullptr};
  if (int rc = device_->exchangeBackward(MPI_COMM_WORLD, e.plan, side,
                                        p->grad.data(), e.dIn))
    throw Error("error " + std::to_string(rc) +
                " in the backward transfer '" + p->name + " -> " +
                e.consumer->name + "'");
}

void Program::gradSync(int64_t id) {
  Layer &l = layer(id);
  activity_ = "the gradient sync of layer '" + l.name + "'";
  Charge charge(timers_, Category::Sync, &l.name, " gradient sync");
  if (l.gradComm == MPI_COMM_NULL)
    throw Error("layer '" + l.name + "' has no replica groups to sync");
  if (l.gradComm == MPI_COMM_SELF || l.task < 0)
    return;
  for (Param &p : l.params)
    if (int rc = device_->allReduceGradients(l.gradComm, p.grad.data(),
                                             p.grad.size()))
      throw Error("error " + std::to_string(rc) +
                  " in the gradient sync of '" + l.name + "'");
}

void Program::sgdUpdate(int64_t id) {
  Layer &l = layer(id);
  activity_ = "the update of layer '" + l.name + "'";
  Charge charge(timers_, Category::Compute, &l.name, " update");
  if (l.task < 0)
    return;
  KernelTimer kernel(timers_);
  for (Param &p : l.params)
    device_->sgdMomentum(p.value.size(), float(options_.lr),
                         float(options_.momentum), float(options_.weightDecay),
                         p.value.data(), p.grad.data(), p.velocity.data());
}

void Program::stepEnd(int64_t step) {
  double partial = layers_.back().partialLoss, total = 0;
  {
    Charge charge(timers_, Category::Sync);
    MPI_Allreduce(&partial, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  double loss = total / double(batch_);
  double seconds = MPI_Wtime() - stepStart_;
  stepTotals_.push_back(timers_.take());
  if (timers_.tracing) {
    timers_.spans.push_back({"step " + std::to_string(step + 1),
                             Category::Other, 0, seconds});
    traced_ = timers_.spans;
    timers_.tracing = false;
  }
  if (!std::isfinite(loss))
    throw CollectiveError(
        std::string("the loss is ") +
        (std::isnan(loss) ? "NaN" : loss > 0 ? "+inf" : "-inf") + " at step " +
        std::to_string(step + 1) + "; the first non-finite values are in " +
        firstNonFinite() + ". Stopping without writing a checkpoint" +
        (lastCheckpoint_ >= 0 ? "; the checkpoint of step " +
                                    std::to_string(lastCheckpoint_) +
                                    " is intact"
                              : ""));
  losses_.push_back(loss);
  stepMs_.push_back(seconds * 1e3);
  if (rank_ == 0 && !options_.quiet) {
    std::printf("step %lld loss %.6f %.1f images/s\n",
                static_cast<long long>(step + 1), loss,
                double(batch_) / seconds);
    std::fflush(stdout);
  }
  if (options_.checkpointEvery && (step + 1) % options_.checkpointEvery == 0)
    checkpoint(step + 1);
}

/// Collective. Where this step's forward pass first produced a NaN or an
/// infinity, in program order: the images a layer reads, or a layer's
/// output. Every rank checks its own tiles, and the earliest wins.
std::string Program::firstNonFinite() {
  int64_t mine = INT64_MAX;
  for (size_t i = 0; i < layers_.size() && mine == INT64_MAX; ++i) {
    const Layer &l = layers_[i];
    for (const Edge *e : l.inputs)
      if (e->producer == HDRT_IMAGES && e->hasBox && e->in &&
          !device_->allFinite(e->in, e->box.volume()))
        mine = 2 * int64_t(i);
    if (mine == INT64_MAX && l.task >= 0 &&
        !device_->allFinite(l.value.data(), l.value.size()))
      mine = 2 * int64_t(i) + 1;
  }
  int64_t first = INT64_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  if (first == INT64_MAX)
    return "no layer's output (the loss overflowed)";
  const Layer &l = layers_[size_t(first / 2)];
  return (first % 2 ? "the output of layer '" : "the images read by layer '") +
         l.name + "'";
}

//===----------------------------------------------------------------------===//
// Checkpoints
//===----------------------------------------------------------------------===//

/// Checkpoints hold values and momentum: host copies of every shard, in
/// `host` (two vectors per parameter), which `shards` point into.
std::vector<mpi::Shard>
Program::stageShards(std::vector<std::vector<float>> &host, bool download) {
  std::vector<mpi::Shard> shards;
  for (Layer &l : layers_)
    for (Param &p : l.params)
      for (int velocity = 0; velocity < 2; ++velocity) {
        const Buffer<float> &buffer = velocity ? p.velocity : p.value;
        std::vector<float> &copy = host.emplace_back(size_t(buffer.size()));
        if (download)
          buffer.download(copy.data());
        mpi::Shard &s = shards.emplace_back();
        s.name = p.name + (velocity ? ".momentum" : "");
        s.shape = p.shape;
        s.box = p.box;
        s.data = buffer.empty() ? nullptr : copy.data();
        s.writes = p.writes;
      }
  return shards;
}

void Program::checkpoint(int64_t step) {
  std::vector<std::vector<float>> host;
  std::vector<mpi::Shard> shards = stageShards(host, /*download=*/true);
  std::string error;
  if (!mpi::writeCheckpoint(MPI_COMM_WORLD, options_.checkpoint, modelHash_,
                            step, shards, error))
    throw CollectiveError("cannot write the checkpoint: " + error);
  lastCheckpoint_ = step;
}

void Program::resume() {
  std::vector<std::vector<float>> host;
  std::vector<mpi::Shard> shards = stageShards(host, /*download=*/false);
  std::string error;
  int64_t step = 0;
  if (!mpi::readCheckpoint(MPI_COMM_WORLD, options_.checkpoint, modelHash_,
                           step, shards, error))
    throw CollectiveError("cannot resume: " + error);
  size_t next = 0;
  for (Layer &l : layers_)
    for (Param &p : l.params) {
      p.value.upload(host[next++].data());
      p.velocity.upload(host[next++].data());
    }
  firstStep_ = lastCheckpoint_ = step;
  if (rank_ == 0 && !options_.quiet)
    std::printf("resumed from %s/checkpoint.hd at step %lld\n",
                options_.checkpoint.c_str(), static_cast<long long>(step));
}

int Program::finish() {
  if (!options_.checkpoint.empty() && !losses_.empty())
    checkpoint(firstStep_ + static_cast<int64_t>(losses_.size()));
  writeMetrics();
  writeTrace();
  return 0;
}

} // namespace hdrt::exec
