//===- Program.h - the state of one rank of a compiled program -*- C++ -*-===//
//
// The generated code defines the network (layers, the edges between them
// with their transfer plans, the replica groups of gradient syncs) and then
// calls the step schedule one layer or transfer at a time. This rank keeps
// only its own tiles: the output tile of each layer it has a task in, the
// input box each of those tasks reads, and its shard of the parameters.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_EXEC_PROGRAM_H
#define HDRT_EXEC_PROGRAM_H

#include "InputSource.h"
#include "Options.h"
#include "Timers.h"

#include "hdrt/Box.h"
#include "hdrt/Device.h"
#include "hdrt/LayerDesc.h"
#include "hdrt/common/Partition.h"
#include "hdrt/mpi/Checkpoint.h"
#include "hdrt/mpi/Exchange.h"

#include <mpi.h>

#include <deque>
#include <future>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace hdrt::exec {

/// An error in the program or its input; the ABI layer reports it and ends
/// the job.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// An error every rank detects at the same point (a missing checkpoint, a
/// bad flag): rank 0 reports it and all ranks exit cleanly.
struct CollectiveError : Error {
  using Error::Error;
};

/// Ranks on one host share its cores: unless OMP_NUM_THREADS says
/// otherwise, each rank's kernels get cores / local ranks threads, and no
/// more than the cores the rank is bound to. Left to its defaults, libgomp
/// starts a thread per core even in a process bound to one core, and the
/// spinning threads made kernels up to 100x slower.
void pickThreads();

/// Streams of the counter-based generator (hdrt/Random.h): one per use, so
/// weights, data and masks never share numbers.
enum Stream : uint64_t {
  kWeights = 1,
  kImages = 2,
  kLabels = 3,
  kDropout = 4,
  kPrototypes = 5,
  kShuffle = 6,
  kAugment = 7,
};
uint64_t streamOf(Stream kind, uint64_t a, uint64_t b = 0);

/// One parameter tensor's shard on this rank, with its gradient and the
/// optimizer's velocity, in device memory.
struct Param {
  std::string name;           // "<layer>.weight", ...
  std::string suffix;         // "weight", ...
  std::vector<int64_t> shape; // global
  Box box;                    // this rank's shard (rank 0 when none)
  Buffer<float> value, grad, velocity;
  bool writes = false; // this rank checkpoints its shard
  /// Trained by SGD; false for statistics a layer keeps (batch norm's
  /// running mean and variance), which have no gradient or momentum.
  bool trained = true;
};

struct Edge;
class LayerImpl;

/// What the loss layer's tile finds in an inference forward: the samples
/// whose label is one of its classes (each sample is counted by exactly one
/// tile), and how many of them rank their label first, or in the first five.
struct Accuracy {
  int64_t samples = 0, top1 = 0, top5 = 0;
};

/// What a layer kind keeps on this rank beyond its tiles and parameters:
/// window geometry, statistics buffers. Each kind defines its own
/// (exec/layers/).
struct LayerState {
  virtual ~LayerState() = default;
};

struct Layer {
  int64_t id = -1;
  const LayerImpl *impl = nullptr; // the kind's code
  std::string name;
  Partition out;
  LayerDescriptor descriptor;
  std::vector<Edge *> inputs; // by operand
  int consumers = 0;          // edges reading this layer's output
  /// The explicit transfers out of this layer whose messages are posted
  /// early (Program::prepareTransfers).
  std::vector<Edge *> postedTransfers;
  /// Whether the step starts by zeroing `grad`: not where its only reader
  /// writes all of it in place (LayerImpl::writesWholeInputGradients), nor
  /// where several readers accumulate it (`lazyGrad`).
  bool zeroGrad = true;
  /// Several readers on this rank: the first to reach `grad` in a step's
  /// backward writes it (in place, if it reads the tile in place and writes
  /// its input gradient whole; else onto zeros), the others add into it.
  /// `gradWritten` says whether this step's backward has reached it yet.
  bool lazyGrad = false, gradWritten = false;

  // This rank's task, if any, and its tensors in device memory.
  int64_t task = -1;
  Box tile;
  Buffer<float> value, grad;
  /// The layout of `value` and `grad`: 1 for NCHW, else the channel block
  /// of the device's nChw<B>c (Program::chooseLayouts).
  int64_t block = 1;
  /// A ReLU that is this layer's only reader and whose output this layer's
  /// forward writes instead of its own (Program::fuseRelus); and, on that
  /// ReLU, that its forward is done.
  Layer *reluInto = nullptr;
  bool computedByProducer = false;
  std::vector<Param> params;
  MPI_Comm gradComm = MPI_COMM_NULL;  // replica group of the parameters
  MPI_Comm statsComm = MPI_COMM_NULL; // tasks that combine statistics
                                      // (the kind's LayerKinds.def entry)
  std::unique_ptr<LayerState> state;
  double partialLoss = 0; // the loss layer: this tile's summed loss
  Accuracy accuracy;      // the loss layer, in inference
  /// Where its parameters come from in the source model, by parameter
  /// suffix ("weight"): the tensor's name, and whether it holds the
  /// transpose of hd's layout.
  std::map<std::string, std::pair<std::string, bool>> sources;

  template <typename Desc> Desc desc() const { return descriptor.as<Desc>(); }
  template <typename State> State &stateAs() const {
    return static_cast<State &>(*state);
  }
};

/// An operand of a layer: what it reads from a producer (a layer, or the
/// images or labels) and how it gets there.
struct Edge {
  int64_t id = -1;
  std::string name; // "producer -> consumer"
  Layer *consumer = nullptr;
  int operand = 0;
  int64_t producer = -1; // a layer id, HDRT_IMAGES or HDRT_LABELS
  Partition source;      // the producer's tensor shape (degrees unused)
  std::vector<mpi::Move> plan;
  bool explicitTransfer = false;
  bool wantsGradient = false; // profiling: an operand standing in for a
                              // layer's output, with its gradient

  // The consumer task's input box on this rank, and its buffers. `in`
  // points into the producer's tile when the box is exactly that tile, and
  // `dIn` into its gradient when this edge is also its only reader. Labels
  // are read on the host, checked, then copied to the device.
  bool hasBox = false;
  Box box;
  bool inAliased = false, gradAliased = false;
  /// A reader of a `lazyGrad` producer that may write the producer's
  /// gradient in place when it is the first to reach it; and whether it
  /// does in this step's backward (`dIn` then points at that gradient).
  bool mayWriteGradInPlace = false, writesGradInPlace = false;
  Buffer<float> inStorage, dInStorage;
  std::vector<int32_t> labels;
  Buffer<int32_t> deviceLabels;
  float *in = nullptr, *dIn = nullptr;
  /// The layout of `in` and `dIn`, as Layer::block: the producer's where
  /// they alias its tile, else NCHW.
  int64_t block = 1;
  /// An explicit transfer's messages on this rank, where they are posted
  /// early (exec/Transfers.cpp); null where the transfer runs whole at its
  /// call.
  std::unique_ptr<mpi::Messages> messages;
};

/// The producer's tile and the edge's box, as the buffers lay them out.
std::pair<Box, Box> localBoxes(const Layer &p, const Edge &e);

/// A step's images and labels on the host: one buffer per input box this
/// rank reads, in the order of Program's inputs.
struct HostBatch {
  std::vector<std::vector<float>> images;
  std::vector<std::vector<int32_t>> labels;
};

/// One evaluation over the whole --eval-data.
struct Evaluation {
  int64_t step = 0; // after this many training steps
  int64_t samples = 0;
  double loss = 0; // mean over the samples
  double top1 = 0, top5 = 0;
};

/// Collective over the world: throws CollectiveError on every rank unless
/// `ok` on every rank, with the message of the first rank that failed.
void agree(bool ok, const std::string &message);

class Program {
public:
  /// `device`: the rank's device, made for this library's backend when
  /// null (hd-profile shares one across many programs).
  Program(Options options, int64_t devices, std::string modelName,
          std::string modelHash, std::shared_ptr<Device> device = nullptr);

  // Definitions, in the order of Abi.def.
  void defineLayer(int64_t id, LayerKind kind, std::string name, int rank,
                   const int64_t *shape, const int64_t *degrees,
                   int64_t operands, const void *descriptor,
                   int64_t descriptorBytes);
  void defineEdge(int64_t id, int64_t consumer, int64_t operand,
                  int64_t producer, int rank, const int64_t *shape,
                  const int64_t *moves, int64_t moveCount);
  void defineGradSync(int64_t layer, const int64_t *groups, int64_t length);
  void defineTensors(int64_t layer, const std::string &text);
  void defineSource(const char *bytes, int64_t size);
  void prepare();

  int64_t firstStep() const { return firstStep_; }
  /// What the program is doing ("the forward of layer 'conv1'"), for
  /// errors of the device.
  const std::string &activity() const { return activity_; }
  int64_t lastStep() const { return options_.steps; }

  // The schedule of one step.
  void stepBegin(int64_t step);
  void forward(int64_t layer);
  void transferForward(int64_t edge);
  void backward(int64_t layer);
  void transferBackward(int64_t edge);
  void gradSync(int64_t layer);
  void sgdUpdate(int64_t layer);
  void stepEnd(int64_t step);
  /// Evaluates when the last step is not evaluated yet, writes the final
  /// checkpoint, the ONNX export and the metrics; returns the exit code.
  int finish();

  /// Profiling (hd-profile): this rank plays task 0, the largest tile, of
  /// every layer, alone: no communicators, no replica checks. Call before
  /// the definitions. The per-step work zeroes the layer's output gradient
  /// when `zeroOutputGradient`, as a step does where its readers add into
  /// it.
  void enableProfiling(bool zeroOutputGradient) {
    profiling_ = true;
    profileZeroesGradient_ = zeroOutputGradient;
    rank_ = 0;
  }
  /// Profiling: graph-input operands whose gradient backward computes, as
  /// it does for a layer inside the network.
  void wantInputGradient(int64_t edge) { edges_.at(edge).wantsGradient = true; }
  /// Waits for the device's work (profiling times whole passes).
  void fence() { device_->fence(); }
  /// Profiling: fills inputs and output gradients with numbers.
  void fillForProfile();
  /// Profiling, after the device's evictFromCaches: brings back into the
  /// caches what a neighbour layer has just written when a step reaches
  /// this one: the operands standing in for producers' outputs before
  /// forward, the output gradients (the consumers') before backward.
  void warmForProfile(bool backward);
  /// The per-step work around the layers: this step's images and labels
  /// where graph inputs are read, output gradients zeroed.
  void stepInputs(int64_t step);

  // What layer kinds (exec/layers/) use in their prepare, forward and
  // backward.
  Device &device() { return *device_; }
  Timers &timers() { return timers_; }
  const Options &options() const { return options_; }
  int64_t step() const { return step_; }
  /// Training (batch statistics, dropout) or inference (running
  /// statistics, no dropout; the loss layer also counts its accuracy).
  bool training() const { return training_; }
  int64_t batch() const { return batch_; }
  /// Combines a layer's partial statistics with the tasks that share them
  /// (its statsComm), charged to sync time.
  void syncStatistics(Layer &l, void *data, int64_t count, ElementType type,
                      ReduceOp op);

private:
  Layer &layer(int64_t id);
  Edge &edge(int64_t id);
  MPI_Comm split(int color, int key);
  void prepareLayer(Layer &l);
  void prepareParams(Layer &l);
  void allocateGradients();
  void prepareEdge(Edge &e);
  void chooseLayouts();
  void fuseRelus();
  void checkPlan(const Edge &e) const;
  void checkOutputs();
  void openInputs();
  HostBatch readBatch(const InputSource &source, int64_t step) const;
  void loadBatch(const HostBatch &batch);
  /// The loss, top-1 and top-5 of the model after `step` steps on the
  /// whole --eval-data, printed by rank 0.
  void evaluate(int64_t step);
  void reportEpoch(int64_t step);
  /// Transfers (exec/Transfers.cpp): the messages posted early, collective.
  void prepareTransfers();
  /// Posts one direction's receives of every transfer.
  void postTransferReceives(bool forward);
  /// After `p`'s forward: sends its tile's boxes to their readers.
  void sendTransfers(Layer &p);
  /// Before `p`'s backward: adds in the gradients its readers sent.
  void receiveTransferGradients(Layer &p);
  /// Waits for every send in flight.
  void finishTransferSends();
  void transfer(int64_t edge, bool forward);
  void gatherLocal(Edge &e);
  void scatterLocal(Edge &e);
  /// Before layer `p`'s gradient is added into in this step: zeroes it if
  /// it is lazily accumulated and nothing wrote it yet.
  void touchGradient(Layer &p);
  /// Before the consumer's backward: where `e` writes its input gradient.
  void claimInputGradient(Edge &e);
  std::string firstNonFinite();
  /// The parameters as shards of global tensors: host copies of each
  /// shard's values and, with `momentum`, its momentum (downloaded when
  /// `download`).
  std::vector<mpi::Shard> stageShards(std::vector<std::vector<float>> &host,
                                      bool download, bool momentum);
  void initWeights();
  std::string weightsFromCheckpoint(const std::vector<mpi::Shard> &shards,
                                    std::vector<std::vector<float>> &tensors);
  std::string weightsFromOnnx(std::vector<std::vector<float>> &tensors);
  std::map<std::string, std::vector<int64_t>>
  sourceDims(std::string &error) const;
  void checkExport() const;
  void exportOnnx();
  void checkpoint(int64_t step);
  void resume();
  void writeMetrics() const;
  void writeTrace() const;

  Options options_;
  std::shared_ptr<Device> device_;
  std::string activity_;
  int64_t devices_;
  std::string modelName_, modelHash_;
  std::string source_; // the source ONNX model, when compiled from one
  int rank_ = 0;
  bool profiling_ = false, profileZeroesGradient_ = true;
  bool training_ = true;
  // Deques: layers and edges point at each other.
  /// The parameter gradients of every layer (allocateGradients); each
  /// Param's `grad` is a view of it.
  Buffer<float> gradients_;
  std::deque<Layer> layers_;
  std::deque<Edge> edges_;
  int64_t firstStep_ = 0, step_ = 0, batch_ = 0;
  int64_t lastCheckpoint_ = -1; // the step of the last checkpoint written
  double stepStart_ = 0;
  /// The communicator of transfers whose messages are posted early, and
  /// whether this step's backward pass has begun (its receives posted).
  MPI_Comm transferComm_ = MPI_COMM_NULL;
  bool backwardBegun_ = false;
  Timers timers_;
  // Inputs: the training source (synthetic without --data), the
  // evaluation data, the input boxes this rank reads, the batch read ahead.
  std::unique_ptr<InputSource> train_;
  std::unique_ptr<DatasetInput> eval_;
  int64_t trainSize_ = 0; // samples in --data; 0: synthetic
  std::vector<Edge *> inputs_;
  int dataThreads_ = 1; // threads that read one batch
  std::future<HostBatch> ahead_;
  int64_t aheadStep_ = -1;
  std::vector<Evaluation> evaluations_;
  std::vector<double> losses_, stepMs_;
  std::vector<TimerTotals> stepTotals_;
  std::vector<Span> traced_; // the spans of the traced step
};

} // namespace hdrt::exec

#endif // HDRT_EXEC_PROGRAM_H
