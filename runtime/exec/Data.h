//===- Data.h - images and labels from a raw file ---------------*- C++ -*-===//
//
// The file is a sequence of samples, each a little-endian int32 label
// followed by the sample's C x H x W float32 values in row-major order. Step
// s of a global batch of N reads samples s*N .. s*N + N - 1, wrapping around
// the file. Each rank reads only the samples and the part of them its tiles
// need.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_EXEC_DATA_H
#define HDRT_EXEC_DATA_H

#include "Program.h"

namespace hdrt::exec {

/// Fills `out`, a buffer of `box` of the images (shape in `images`).
void readImages(const std::string &path, const Partition &images,
                int64_t step, const Box &box, float *out);
/// Fills the labels of samples [box.lo[0], box.hi[0]).
void readLabels(const std::string &path, const Partition &images,
                int64_t step, const Box &box, int32_t *out);

} // namespace hdrt::exec

#endif // HDRT_EXEC_DATA_H
