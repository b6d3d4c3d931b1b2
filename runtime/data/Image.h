//===- Image.h - PNG and JPEG images, resized to a model --------*- C++ -*-===//
//
// ImageFolder's pieces: the PNG and JPEG decoders (libpng, libjpeg), each
// with a header-only read for open and a full decode for read(), and the
// resize and center crop that make any image the model's shape. The
// decoders give 8-bit pixels as stored (no gamma or color management, as
// PIL gives them); channel conversion happens while resizing.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_DATA_IMAGE_H
#define HDRT_DATA_IMAGE_H

#include "hdrt/data/Dataset.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace hdrt::data {

/// What open learns of an image from its header.
struct ImageInfo {
  enum class Kind { Png, Jpeg };
  Kind kind = Kind::Png;
  int64_t width = 0, height = 0;
};

/// An image's 8-bit pixels, row-major and interleaved: 1 channel (gray),
/// 2 (gray, alpha), 3 (RGB) or 4 (RGBA).
struct Pixels {
  int64_t width = 0, height = 0;
  int channels = 0;
  std::vector<uint8_t> data;
};

/// The most bytes a decoded image may take (width x height x 4): a header
/// can claim 2^31 x 2^31 pixels.
constexpr int64_t kMaxImageBytes = int64_t(1) << 31;

/// The header of the PNG or JPEG at `path` (told apart by their magic, not
/// the name); throws DataError("<path>: <reason>") when it is neither or its
/// header is broken.
ImageInfo readImageInfo(const std::string &path);
/// The whole image, which must still match `info`; throws DataError.
Pixels decodeImage(const std::string &path, const ImageInfo &info);

/// What one decoder session learns of a file: its size and channels, and
/// its pixels when `pixels` is set; `message` says why when it fails.
struct DecodeState {
  char message[256] = "";
  int64_t width = 0, height = 0;
  int channels = 0;
  /// Where to decode to; null: read the header only.
  Pixels *pixels = nullptr;
};

/// The libpng and libjpeg halves of the two above: read `file`'s header,
/// and its pixels when state.pixels is set. False, with state.message set,
/// on an error.
bool runLibpng(std::FILE *file, DecodeState &state);
bool runLibjpeg(std::FILE *file, DecodeState &state);

/// How an h x w image becomes the model's H x W: resized (aspect kept) to
/// rh x rw, the smallest size that covers H x W, then cropped at (top,
/// left).
struct CoverCrop {
  int64_t rh, rw, top, left;
};
CoverCrop coverCrop(int64_t h, int64_t w, int64_t modelH, int64_t modelW);

/// Fills `region` of the model's `shape` (C = 1 or 3) from `pixels`: the
/// image converted to C channels (gray replicated or RGB kept, alpha
/// dropped; C = 1: luma 0.299 R + 0.587 G + 0.114 B), resized bilinearly
/// with half-pixel centers and cropped as coverCrop says, in float with no
/// rounding between the steps, then scaled by 1/255.
void resizeCropRegion(const Pixels &pixels, const ImageShape &shape,
                      const Region &region, float *out);

} // namespace hdrt::data

#endif // HDRT_DATA_IMAGE_H
