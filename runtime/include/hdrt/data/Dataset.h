//===- Dataset.h - images and labels from data-set files --------*- C++ -*-===//
//
// Training reads its images from the files people already have: MNIST-style
// IDX files, NumPy .npy arrays, torchvision's ImageFolder of PNG and JPEG
// files, and hd's own raw format. One interface hides them, so that the
// executor asks for "the region of sample i" and each rank reads only the
// part of an image its tiles need. openDataset finds the format from the
// file's content and checks everything it can (sizes against headers, the
// image shape against the model, every label) before training starts: a
// broken file is found at open, not hours later.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_DATA_DATASET_H
#define HDRT_DATA_DATASET_H

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace hdrt::data {

/// The images a model takes: channels x height x width.
struct ImageShape {
  int64_t c = 0, h = 0, w = 0;

  bool operator==(const ImageShape &o) const {
    return c == o.c && h == o.h && w == o.w;
  }
  bool operator!=(const ImageShape &o) const { return !(*this == o); }
  int64_t volume() const { return c * h * w; }
};

/// "CxHxW", as messages write shapes.
std::string toString(const ImageShape &shape);

/// A region of one image: [c0,c1) x [y0,y1) x [x0,x1), inside the image.
struct Region {
  int64_t c0, c1, y0, y1, x0, x1;

  int64_t volume() const { return (c1 - c0) * (y1 - y0) * (x1 - x0); }
  /// The whole of an image of `shape`.
  static Region whole(const ImageShape &shape) {
    return {0, shape.c, 0, shape.h, 0, shape.w};
  }
};

struct DataError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct OpenOptions {
  /// A labels file (IDX or .npy). Empty: IDX finds it beside the images by
  /// the standard naming; .npy requires it; raw files and ImageFolder carry
  /// labels (giving one for them is an error).
  std::string labels;
  /// The model's input. Every format must give exactly this shape, except
  /// ImageFolder, whose images are resized and center-cropped to it.
  ImageShape model;
};

class Dataset {
public:
  virtual ~Dataset() = default;

  /// The number of samples.
  int64_t size() const { return size_; }
  /// The shape read() gives: OpenOptions::model.
  ImageShape shape() const { return shape_; }

  /// One line for logs: format, file, count, stored shape and type,
  /// e.g. "IDX '.../t10k-images-idx3-ubyte.gz': 10000 images of 28x28 uint8".
  virtual std::string describe() const = 0;
  /// The label of sample `index`, 0 <= index < size() (std::out_of_range
  /// otherwise).
  virtual int32_t label(int64_t index) const = 0;
  /// The values of `region` of sample `index`, row-major (c, y, x), into
  /// `out` (region.volume() floats): uint8 data scaled to [0, 1] (v / 255.0f),
  /// float data as stored. Thread-safe: several threads read different or
  /// the same samples at once. Throws DataError naming the file and the
  /// reason on an I/O or decode failure, std::out_of_range for an index or
  /// region outside the data set.
  virtual void read(int64_t index, const Region &region, float *out) const = 0;

protected:
  Dataset(int64_t size, ImageShape shape) : size_(size), shape_(shape) {}
  /// Throws std::out_of_range unless 0 <= index < size().
  void checkIndex(int64_t index) const;
  /// Throws std::out_of_range unless `region` is a box inside shape()
  /// (empty boxes included).
  void checkRegion(const Region &region) const;

private:
  int64_t size_;
  ImageShape shape_;
};

/// Opens `path`, finding the format from it (not from its name alone):
/// a directory is an ImageFolder; a file whose first bytes are the gzip
/// magic is gunzipped in memory first; then the IDX magic (0x00000803,
/// uint8 N x H x W) means IDX, "\x93NUMPY" means .npy, and anything else is
/// hd's raw format (per sample an int32 little-endian label then C x H x W
/// float32 little-endian values; the file size must be a whole number of
/// samples). Checks all it can before returning, and throws
/// DataError("<path>: <reason>") otherwise: unreadable or missing file,
/// truncated data (sizes vs headers), bad magic or header, element type not
/// uint8/float32, image shape vs options.model (the message gives both
/// shapes), labels file missing or with another sample count, a negative
/// label, no images at all.
std::unique_ptr<Dataset> openDataset(const std::string &path,
                                     const OpenOptions &options);

} // namespace hdrt::data

#endif // HDRT_DATA_DATASET_H
