//===- StoredImages.cpp - a region of images stored as a dense array ------===//
//
// IDX, .npy and raw files all store their images as one dense array, so one
// routine reads a region of a sample from any of them. A rank usually needs
// one tile of an image: the bytes from the region's first value to its last
// are read with one pread (fewer system calls than one per row, and never
// more than the sample), then the region is picked out and converted. The
// three formats' data sets are then one class: this array and its labels.
//
//===----------------------------------------------------------------------===//

#include "Formats.h"

#include <cstring>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the readers take little-endian float32 as the host's floats");

namespace hdrt::data {

const char *typeName(StoredImages::Type type) {
  return type == StoredImages::Type::U8 ? "uint8" : "float32";
}

void StoredImages::read(int64_t index, const Region &r, float *out) const {
  if (r.volume() == 0)
    return;
  const int64_t c = shape.c, h = shape.h, w = shape.w;
  // The element offset of (ch, y, x) within a sample.
  auto at = [&](int64_t ch, int64_t y, int64_t x) {
    return nhwc ? (y * w + x) * c + ch : (ch * h + y) * w + x;
  };
  // Offsets grow with each coordinate, so the region's first and last
  // values are its corners.
  int64_t first = at(r.c0, r.y0, r.x0);
  int64_t last = at(r.c1 - 1, r.y1 - 1, r.x1 - 1);
  int64_t bytes = elementBytes();
  std::vector<uint8_t> span((last - first + 1) * bytes);
  source->read(offset + index * stride + first * bytes, span.size(),
               span.data());

  for (int64_t ch = r.c0; ch < r.c1; ++ch)
    for (int64_t y = r.y0; y < r.y1; ++y)
      for (int64_t x = r.x0; x < r.x1; ++x) {
        const uint8_t *v = span.data() + (at(ch, y, x) - first) * bytes;
        if (type == Type::U8) {
          *out++ = *v / 255.0f;
        } else {
          float f;
          std::memcpy(&f, v, 4);
          *out++ = f;
        }
      }
}

namespace {

class ArrayDataset : public Dataset {
public:
  ArrayDataset(std::unique_ptr<Source> file, StoredImages images,
               std::vector<int32_t> labels, std::string description)
      : Dataset(labels.size(), images.shape), file(std::move(file)),
        images(images), labels(std::move(labels)),
        description(std::move(description)) {
    this->images.source = this->file.get();
  }

  std::string describe() const override { return description; }
  int32_t label(int64_t index) const override {
    checkIndex(index);
    return labels[index];
  }
  void read(int64_t index, const Region &region, float *out) const override {
    checkIndex(index);
    checkRegion(region);
    images.read(index, region, out);
  }

private:
  std::unique_ptr<Source> file;
  StoredImages images;
  std::vector<int32_t> labels;
  std::string description;
};

} // namespace

std::unique_ptr<Dataset> makeArrayDataset(std::unique_ptr<Source> file,
                                          StoredImages images,
                                          std::vector<int32_t> labels,
                                          std::string description) {
  return std::make_unique<ArrayDataset>(
      std::move(file), images, std::move(labels), std::move(description));
}

} // namespace hdrt::data
