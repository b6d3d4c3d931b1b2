//===- Raw.cpp - hd's raw format: label and float32 values per sample -----===//
//
// The format hd's tools have written from the start: per sample, an int32 little-endian label then the C x H x W
// float32 little-endian values, row-major. There is no header, so the model's
// shape says how long a record is and the file's size must be a whole
// number of records; that check is all that tells a raw file from some
// other file. The labels are read at open, so a negative one is found
// before training.
//
//===----------------------------------------------------------------------===//

#include "Formats.h"

namespace hdrt::data {

std::unique_ptr<Dataset> openRaw(std::unique_ptr<Source> file,
                                 const OpenOptions &options) {
  const std::string &path = file->path();
  const ImageShape &m = options.model;
  if (!options.labels.empty())
    fail(path, "a raw data file carries its labels; a labels file ('" +
                   options.labels + "') is not used with it");
  int64_t record = 4 + 4 * m.volume();
  std::string recordText = std::to_string(record) +
                           " bytes (an int32 label and " + toString(m) +
                           " float32 values)";
  if (file->size() == 0)
    fail(path, "no images: the file is empty");
  if (file->size() % record != 0)
    fail(path,
         "not a whole number of samples: " + std::to_string(file->size()) +
             " bytes" + (file->gunzipped() ? " (gunzipped)" : "") +
             ", and a raw sample of this model is " + recordText +
             "; or not a data file in a format hd knows (IDX, .npy, "
             "raw, a directory of images)");
  int64_t n = file->size() / record;

  std::vector<int32_t> labels(n);
  for (int64_t i = 0; i < n; ++i) {
    uint8_t b[4];
    file->read(i * record, 4, b);
    int32_t v = int32_t(uint32_t(b[0]) | uint32_t(b[1]) << 8 |
                        uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24);
    if (v < 0)
      fail(path, "label " + std::to_string(v) + " of sample " +
                     std::to_string(i) + " is negative");
    labels[i] = v;
  }

  StoredImages images;
  images.offset = 4;
  images.stride = record;
  images.shape = m;
  images.type = StoredImages::Type::F32;
  std::string description = "raw '" + path + "': " + std::to_string(n) +
                            " images of " + toString(m) + " float32";
  return makeArrayDataset(std::move(file), images, std::move(labels),
                          description);
}

} // namespace hdrt::data
