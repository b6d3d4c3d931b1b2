//===- InputSource.cpp - the images and labels of every step -------------===//

#include "InputSource.h"

#include "Streams.h"

#include "hdrt/Random.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace hdrt::exec {

//===----------------------------------------------------------------------===//
// Synthetic data
//===----------------------------------------------------------------------===//

SyntheticBatch SyntheticInput::batch(int64_t step) const {
  SyntheticBatch b;
  b.seed = seed_;
  b.labels = streamOf(kLabels, uint64_t(step));
  b.noise = streamOf(kImages, uint64_t(step));
  b.prototypes = streamOf(kPrototypes, 0);
  b.classes = classes_;
  return b;
}

void SyntheticInput::labels(int64_t step, const Box &rows, int32_t *out) const {
  SyntheticBatch b = batch(step);
  for (int64_t n = rows.lo[0]; n < rows.hi[0]; ++n)
    *out++ = syntheticLabel(b, n);
}

void SyntheticInput::images(int64_t step, const int64_t *shape, const Box &box,
                            float *out) const {
  SyntheticBatch b = batch(step);
  int64_t h = shape[2], w = shape[3], sample = shape[1] * h * w;
  for (int64_t n = box.lo[0]; n < box.hi[0]; ++n) {
    int64_t label = syntheticLabel(b, n);
    for (int64_t c = box.lo[1]; c < box.hi[1]; ++c)
      for (int64_t y = box.lo[2]; y < box.hi[2]; ++y) {
        int64_t offset = (c * h + y) * w;
        for (int64_t x = box.lo[3]; x < box.hi[3]; ++x)
          *out++ = syntheticPixel(b, label, n, sample, offset + x);
      }
  }
}

//===----------------------------------------------------------------------===//
// Data sets
//===----------------------------------------------------------------------===//

DatasetInput::DatasetInput(std::unique_ptr<data::Dataset> data, int64_t batch,
                           Preprocessing preprocessing)
    : data_(std::move(data)), batch_(batch), pre_(std::move(preprocessing)) {}

int64_t DatasetInput::stepsPerEpoch() const {
  return (data_->size() + batch_ - 1) / batch_;
}

int64_t DatasetInput::sampleAt(int64_t position) const {
  int64_t size = data_->size();
  if (pre_.evaluation)
    return position < size ? position : -1;
  int64_t epoch = position / size, index = position % size;
  if (!pre_.shuffle)
    return index;
  std::shared_ptr<const std::vector<int64_t>> order;
  {
    std::lock_guard<std::mutex> lock(orderLock_);
    auto &cached = orders_[epoch];
    if (!cached) {
      // Fisher-Yates with the epoch's own stream: every rank draws the
      // same permutation.
      auto perm = std::make_shared<std::vector<int64_t>>(size_t(size));
      std::iota(perm->begin(), perm->end(), 0);
      uint64_t stream = streamOf(kShuffle, uint64_t(epoch));
      for (int64_t i = size - 1; i > 0; --i) {
        int64_t j = int64_t(
            uniformIndex(pre_.seed, stream, uint64_t(i), uint64_t(i + 1)));
        std::swap((*perm)[size_t(i)], (*perm)[size_t(j)]);
      }
      cached = std::move(perm);
    }
    order = cached;
    // A batch spans at most two epochs; older ones are done.
    orders_.erase(orders_.begin(), orders_.lower_bound(epoch - 1));
  }
  return (*order)[size_t(index)];
}

void DatasetInput::labels(int64_t step, const Box &rows, int32_t *out) const {
  for (int64_t n = rows.lo[0]; n < rows.hi[0]; ++n) {
    int64_t sample = sampleAt(step * batch_ + n);
    *out++ = sample < 0 ? kPaddingLabel : data_->label(sample);
  }
}

void DatasetInput::readAugmented(int64_t position, int64_t sample,
                                 const data::Region &r, float *out) const {
  if (pre_.evaluation || (!pre_.flip && pre_.cropPadding < 0)) {
    data_->read(sample, r, out);
    return;
  }
  // The augmented image is a crop of the image padded with zeros by P on
  // every side, at an offset (dy, dx) in [0, 2P], then flipped or not:
  // its (y, x) is the image's (y + dy - P, x' + dx - P), x' = flip ? w-1-x
  // : x, as torchvision's RandomCrop(padding=P) and RandomHorizontalFlip.
  const data::ImageShape s = data_->shape();
  uint64_t stream = streamOf(kAugment, uint64_t(position));
  int64_t p = std::max<int64_t>(pre_.cropPadding, 0);
  int64_t dy = int64_t(uniformIndex(pre_.seed, stream, 0, uint64_t(2 * p + 1)));
  int64_t dx = int64_t(uniformIndex(pre_.seed, stream, 1, uint64_t(2 * p + 1)));
  bool flip = pre_.flip && uniform(pre_.seed, stream, 2) < 0.5f;
  // The source columns of out's first and last column, in order.
  int64_t xa = (flip ? s.w - 1 - r.x0 : r.x0) + dx - p;
  int64_t xb = (flip ? s.w - r.x1 : r.x1 - 1) + dx - p;
  data::Region src = {r.c0,
                      r.c1,
                      std::clamp<int64_t>(r.y0 + dy - p, 0, s.h),
                      std::clamp<int64_t>(r.y1 + dy - p, 0, s.h),
                      std::clamp<int64_t>(std::min(xa, xb), 0, s.w),
                      std::clamp<int64_t>(std::max(xa, xb) + 1, 0, s.w)};
  std::fill(out, out + r.volume(), 0.0f);
  if (src.y0 >= src.y1 || src.x0 >= src.x1)
    return;
  std::vector<float> part(size_t(src.volume()));
  data_->read(sample, src, part.data());
  int64_t rh = r.y1 - r.y0, rw = r.x1 - r.x0;
  int64_t sh = src.y1 - src.y0, sw = src.x1 - src.x0;
  for (int64_t c = 0; c < r.c1 - r.c0; ++c)
    for (int64_t y = 0; y < rh; ++y) {
      int64_t sy = r.y0 + y + dy - p - src.y0;
      if (sy < 0 || sy >= sh)
        continue;
      for (int64_t x = 0; x < rw; ++x) {
        int64_t ox = r.x0 + x;
        int64_t sx = (flip ? s.w - 1 - ox : ox) + dx - p - src.x0;
        if (sx >= 0 && sx < sw)
          out[(c * rh + y) * rw + x] = part[size_t((c * sh + sy) * sw + sx)];
      }
    }
}

void DatasetInput::images(int64_t step, const int64_t *, const Box &b,
                          float *out) const {
  data::Region r = {b.lo[1], b.hi[1], b.lo[2], b.hi[2], b.lo[3], b.hi[3]};
  int64_t volume = r.volume(), plane = r.volume() / (r.c1 - r.c0);
  for (int64_t n = b.lo[0]; n < b.hi[0]; ++n, out += volume) {
    int64_t position = step * batch_ + n, sample = sampleAt(position);
    if (sample < 0) {
      std::fill(out, out + volume, 0.0f);
      continue;
    }
    readAugmented(position, sample, r, out);
    // torchvision's Normalize: (v - mean) / std per channel.
    if (pre_.mean.empty())
      continue;
    for (int64_t c = r.c0; c < r.c1; ++c) {
      size_t k = pre_.mean.size() == 1 ? 0 : size_t(c);
      float mean = float(pre_.mean[k]);
      float std = pre_.std.empty() ? 1.0f : float(pre_.std[k]);
      float *v = out + (c - r.c0) * plane;
      for (int64_t i = 0; i < plane; ++i)
        v[i] = (v[i] - mean) / std;
    }
  }
}

} // namespace hdrt::exec
