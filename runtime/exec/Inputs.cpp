//===- Inputs.cpp - each step's images and labels, read ahead -------------===//

#include "Inputs.h"

#include "Errors.h"

#include "hdrt/hdrt.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hdrt::exec {

namespace {

/// The model's images as a data set gives them: C x H x W (a 2-D model
/// input of F features is F x 1 x 1).
data::ImageShape imageShapeOf(const Edge &images) {
  const int64_t *s = images.source.shape;
  return {s[1], s[2], s[3]};
}

/// Opens a data set for this model, or throws data::DataError.
std::unique_ptr<DatasetInput> openInput(const std::string &path,
                                        const std::string &labels,
                                        data::ImageShape shape, int64_t classes,
                                        int64_t batch, Preprocessing pre) {
  data::OpenOptions open;
  open.labels = labels;
  open.model = shape;
  std::unique_ptr<data::Dataset> set = data::openDataset(path, open);
  // A label the loss cannot count is found now, not at some late step.
  for (int64_t i = 0; i < set->size(); ++i)
    if (int32_t label = set->label(i); label >= classes)
      throw data::DataError(path + ": label " + std::to_string(label) +
                            " of sample " + std::to_string(i) +
                            " is outside the model's " +
                            std::to_string(classes) + " classes");
  size_t values = pre.mean.size();
  if (values > 1 && int64_t(values) != shape.c)
    throw data::DataError("--mean and --std give " + std::to_string(values) +
                          " values, but the model's images have " +
                          std::to_string(shape.c) + " channel" +
                          (shape.c == 1 ? "" : "s"));
  return std::make_unique<DatasetInput>(std::move(set), batch, std::move(pre));
}

} // namespace

void Inputs::open(Options &options, int64_t batch) {
  threads_ =
      options.dataThreads ? int(options.dataThreads) : omp_get_max_threads();
  const Layer &last = network_.layers().back();
  int64_t classes = last.out.rank >= 2 ? last.out.shape[1] : 1;
  train_ = std::make_unique<SyntheticInput>(options.seed, classes);
  const Edge *images = nullptr;
  for (Edge &e : network_.edges()) {
    if (e.producer == HDRT_IMAGES && !images)
      images = &e;
    if (e.hasBox && e.producer < 0 && !e.wantsGradient)
      inputs_.push_back(&e);
  }
  // A GPU makes synthetic images itself: no host work, no upload. The host
  // makes them for the CPU device, a step ahead on threads of their own.
  if (options.data.empty() && !device_.hostAccessible())
    synthetic_ = static_cast<const SyntheticInput *>(train_.get());
  bool hostImages = !synthetic_ || !options.evalData.empty();
  for (HostBatch &b : batches_)
    for (const Edge *e : inputs_) {
      if (e->producer == HDRT_LABELS)
        b.labels.emplace_back(size_t(e->box.volume()));
      else if (hostImages)
        b.images.emplace_back(device_, e->box.volume());
    }
  if (options.data.empty() && options.evalData.empty())
    return;
  if (!images)
    throw CollectiveError("the program reads no images: --data and "
                          "--eval-data have nothing to feed");
  Preprocessing pre;
  pre.seed = options.seed;
  pre.shuffle = options.shuffle;
  pre.flip = options.flip;
  pre.cropPadding = options.cropPadding;
  pre.mean = options.mean;
  pre.std = options.std;
  std::string error;
  std::unique_ptr<DatasetInput> train, eval;
  try {
    if (!options.data.empty())
      train = openInput(options.data, options.labels, imageShapeOf(*images),
                        classes, batch, pre);
  } catch (const data::DataError &e) {
    error = std::string("cannot train on --data: ") + e.what();
  }
  try {
    pre.evaluation = true;
    if (error.empty() && !options.evalData.empty())
      eval = openInput(options.evalData, options.evalLabels,
                       imageShapeOf(*images), classes, batch, pre);
  } catch (const data::DataError &e) {
    error = std::string("cannot evaluate on --eval-data: ") + e.what();
  }
  // Every rank opens the files: one that a node cannot read ends the job
  // with that node's reason.
  agree(error.empty(), error);
  if (train) {
    trainSize_ = train->dataset().size();
    if (options.epochs > 0)
      options.steps = int64_t(
          std::ceil(options.epochs * double(trainSize_) / double(batch)));
    if (rank_ == 0 && !options.quiet)
      std::printf("data: %s, %lld steps per epoch\n",
                  train->dataset().describe().c_str(),
                  static_cast<long long>(train->stepsPerEpoch()));
    train_ = std::move(train);
  }
  if (eval) {
    if (rank_ == 0 && !options.quiet)
      std::printf("evaluation data: %s\n", eval->dataset().describe().c_str());
    eval_ = std::move(eval);
  }
  std::fflush(stdout);
}

/// Reads `box` of a step's images on `threads` threads, each a run of
/// samples: decoding JPEGs for a fast model takes more than one core.
static void readImages(const InputSource &source, int64_t step,
                       const int64_t *shape, const Box &box, int threads,
                       float *out) {
  int64_t rows = box.hi[0] - box.lo[0], perRow = box.volume() / rows;
  int64_t parts = std::min<int64_t>(std::max(threads, 1), rows);
  std::vector<std::future<void>> running;
  for (int64_t p = parts - 1; p >= 0; --p) {
    Box part = box;
    part.lo[0] = box.lo[0] + rows * p / parts;
    part.hi[0] = box.lo[0] + rows * (p + 1) / parts;
    float *at = out + (part.lo[0] - box.lo[0]) * perRow;
    auto read = [&source, step, shape, part, at] {
      source.images(step, shape, part, at);
    };
    if (p > 0)
      running.push_back(std::async(std::launch::async, read));
    else
      read();
  }
  for (std::future<void> &r : running)
    r.get(); // rethrows a reader's error
}

void Inputs::read(const InputSource &source, int64_t step,
                  HostBatch &into) const {
  size_t images = 0, labels = 0;
  for (const Edge *e : inputs_) {
    if (e->producer == HDRT_LABELS)
      source.labels(step, e->box, into.labels[labels++].data());
    else if (!imagesOnDevice(source))
      readImages(source, step, e->source.shape, e->box, threads_,
                 into.images[images++].data());
  }
}

void Inputs::upload(const InputSource &source, int64_t step,
                    const HostBatch &batch) {
  size_t images = 0, labels = 0;
  for (Edge *e : inputs_) {
    if (e->producer == HDRT_LABELS) {
      const std::vector<int32_t> &l = batch.labels[labels++];
      std::copy(l.begin(), l.end(), e->labels.begin());
      e->deviceLabels.upload(e->labels.data());
    } else if (imagesOnDevice(source)) {
      kernelsOf<SyntheticImagesKernels>(device_).images(synthetic_->batch(step),
                                                        e->source.shape, e->box,
                                                        e->inStorage.data());
    } else {
      e->inStorage.upload(batch.images[images++].data());
    }
  }
}

HostBatch &Inputs::freeBatch() {
  int free = 0;
  if (ahead_.valid())
    free = 1 - aheadBatch_;
  device_.finishUploads();
  return batches_[free];
}

void Inputs::load(int64_t step, bool readAhead, int64_t lastStep) {
  HostBatch *batch = nullptr;
  try {
    // The step waits for its batch: read ahead during the previous step,
    // or now (the first step, or after profiling).
    Charge wait(timers_, Category::Input);
    if (ahead_.valid() && aheadStep_ == step) {
      ahead_.get();
      batch = &batches_[aheadBatch_];
    } else {
      if (ahead_.valid())
        ahead_.wait(); // a step no one asked for: its batch is free
      ahead_ = {};
      batch = &freeBatch();
      read(*train_, step, *batch);
    }
  } catch (const data::DataError &e) {
    throw Error(std::string("reading the data of step ") +
                std::to_string(step + 1) + ": " + e.what());
  }
  // The next step's batch is read into the other buffer while this one
  // trains, once the device has read that buffer's last upload.
  if (readAhead && step + 1 < lastStep) {
    aheadBatch_ = int(batch - batches_) ^ 1;
    device_.finishUploads();
    aheadStep_ = step + 1;
    ahead_ = std::async(std::launch::async, [this, next = step + 1] {
      read(*train_, next, batches_[aheadBatch_]);
    });
  }
  upload(*train_, step, *batch);
}

void Inputs::loadEvaluation(int64_t index) {
  try {
    HostBatch &batch = freeBatch();
    read(*eval_, index, batch);
    upload(*eval_, index, batch);
  } catch (const data::DataError &e) {
    throw Error(std::string("reading the evaluation data: ") + e.what());
  }
}

} // namespace hdrt::exec
