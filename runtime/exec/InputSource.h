//===- InputSource.h - the images and labels of every step -----*- C++ -*-===//
//
// A step of a global batch of N reads the samples at global positions
// step * N .. step * N + N - 1. A source maps each position to its label
// and to the values of any box of its image, as a pure function of the
// position: every rank computes the same batch whatever part of it its
// tiles read, and a background thread can prepare the next step while
// this one trains.
//
// Training data: position p is sample order[p mod size] of epoch p / size,
// where the order is the identity, or with --shuffle a permutation drawn
// per epoch from the seed. --augment draws a crop offset and a flip per
// position. Evaluation data: position p is sample p; the positions past
// the end of the data pad the last batch with zero images and the label
// -1, which no loss or accuracy counts.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_EXEC_INPUTSOURCE_H
#define HDRT_EXEC_INPUTSOURCE_H

#include "Options.h"

#include "hdrt/Box.h"
#include "hdrt/data/Dataset.h"
#include "kernels/SyntheticImages/SyntheticImagesKernels.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace hdrt::exec {

/// The label an evaluation batch gives the samples past the end of its
/// data set: the loss layer counts them in no loss and no accuracy.
constexpr int32_t kPaddingLabel = -1;

class InputSource {
public:
  virtual ~InputSource() = default;
  /// The labels of samples [rows.lo[0], rows.hi[0]) of step `step`.
  virtual void labels(int64_t step, const Box &rows, int32_t *out) const = 0;
  /// `box` (n, c, h, w) of step `step`'s images of `shape` (n, c, h, w),
  /// row-major.
  virtual void images(int64_t step, const int64_t *shape, const Box &box,
                      float *out) const = 0;
};

/// Learnable numbers for runs without --data: sample n of step s has a
/// uniform random label, and its image is that class's fixed random
/// prototype plus as much uniform noise.
/// The formulas are the device's too (SyntheticImagesKernels.h), which
/// makes the images where the host cannot write device memory.
class SyntheticInput final : public InputSource {
public:
  SyntheticInput(uint64_t seed, int64_t classes)
      : seed_(seed), classes_(classes) {}
  void labels(int64_t step, const Box &rows, int32_t *out) const override;
  void images(int64_t step, const int64_t *shape, const Box &box,
              float *out) const override;
  /// Step `step`'s streams, for the device's kernels.
  SyntheticBatch batch(int64_t step) const;

private:
  uint64_t seed_;
  int64_t classes_;
};

/// How a data set's images become a model's input.
struct Preprocessing {
  uint64_t seed = 1;
  bool evaluation = false; // in order, padded; no shuffle, no augmentation
  bool shuffle = false;
  bool flip = false;
  int64_t cropPadding = -1; // -1: no random crop
  std::vector<double> mean, std; // per channel; empty: as read
};

class DatasetInput final : public InputSource {
public:
  DatasetInput(std::unique_ptr<data::Dataset> data, int64_t batch,
               Preprocessing preprocessing);
  const data::Dataset &dataset() const { return *data_; }
  /// Steps of one pass over the data (the last one padded in evaluation).
  int64_t stepsPerEpoch() const;
  void labels(int64_t step, const Box &rows, int32_t *out) const override;
  /// `shape` is the data set's: openDataset checked it.
  void images(int64_t step, const int64_t *shape, const Box &box,
              float *out) const override;

private:
  /// The sample at a global position; -1 for evaluation padding.
  int64_t sampleAt(int64_t position) const;
  /// The data set's region behind `region` of the augmented image at
  /// `position`, into `out` (the region's volume).
  void readAugmented(int64_t position, int64_t sample,
                     const data::Region &region, float *out) const;

  std::unique_ptr<data::Dataset> data_;
  int64_t batch_;
  Preprocessing pre_;
  // The permutations of the epochs in use (a batch may span two), built on
  // first use by whichever thread needs one.
  mutable std::mutex orderLock_;
  mutable std::map<int64_t, std::shared_ptr<const std::vector<int64_t>>>
      orders_;
};

} // namespace hdrt::exec

#endif // HDRT_EXEC_INPUTSOURCE_H
