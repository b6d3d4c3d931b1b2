//===- Inputs.cpp - the images and labels of each step --------------------===//
//
// Every task that reads a graph input loads its own input box of it: from
// the --data file (Data.cpp), or synthetic data that can be learned. Every
// number is keyed by global indices, so any split reads the same batch.
//
//===----------------------------------------------------------------------===//

#include "Data.h"
#include "Program.h"

#include "hdrt/Random.h"
#include "hdrt/hdrt.h"

#include <algorithm>

namespace hdrt::exec {

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
  uint64_t noise = streamOf(kImages, step),
           prototypes = streamOf(kPrototypes, 0);
  const int64_t *s = e.source.shape;
  int64_t sample = s[1] * s[2] * s[3];
  for (int64_t n = b.lo[0]; n < b.hi[0]; ++n) {
    int64_t label = syntheticLabel(step, n);
    for (int64_t c = b.lo[1]; c < b.hi[1]; ++c)
      for (int64_t y = b.lo[2]; y < b.hi[2]; ++y) {
        int64_t offset = (c * s[2] + y) * s[3];
        for (int64_t x = b.lo[3]; x < b.hi[3]; ++x) {
          float p =
              uniform(options_.seed, prototypes, label * sample + offset + x);
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

} // namespace hdrt::exec
