//===- Idx.cpp - MNIST-style IDX image files ------------------------------===//
//
// IDX is what MNIST, Fashion-MNIST and their kin ship as: a big-endian
// header (two zero bytes, a type code, a dimension count, the dimensions)
// then the values. The images are uint8 N x H x W, so the model must take
// one channel. The labels are a second IDX file, found beside the images by
// the standard naming when none is given, so that pointing hd at the images
// is enough.
//
//===----------------------------------------------------------------------===//

#include "Formats.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

namespace hdrt::data {

namespace {

/// The IDX type codes and their names.
const char *idxTypeName(uint8_t code) {
  switch (code) {
  case 0x08:
    return "uint8";
  case 0x09:
    return "int8";
  case 0x0B:
    return "int16";
  case 0x0C:
    return "int32";
  case 0x0D:
    return "float32";
  case 0x0E:
    return "float64";
  default:
    return nullptr;
  }
}

bool isRegularFile(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

/// The labels file beside `images` by the standard naming, or throws
/// naming what was tried.
std::string labelsBeside(const std::string &images) {
  namespace fs = std::filesystem;
  fs::path path(images);
  std::string name = path.filename().string();
  std::string labelsName;
  for (auto [from, to] :
       {std::pair{"images-idx3-ubyte", "labels-idx1-ubyte"},
        std::pair{"images.idx3-ubyte", "labels.idx1-ubyte"}}) {
    size_t at = name.rfind(from);
    if (at != std::string::npos) {
      labelsName = name.substr(0, at) + to + name.substr(at + strlen(from));
      break;
    }
  }
  if (labelsName.empty())
    fail(images, "no labels file was given, and the name has no "
                 "'images-idx3-ubyte' to find one beside it by");
  // The same compression suffix first, then the other.
  std::string base = labelsName;
  bool gz = base.size() > 3 && base.compare(base.size() - 3, 3, ".gz") == 0;
  if (gz)
    base.resize(base.size() - 3);
  std::string tried[2] = {base + ".gz", base};
  if (!gz)
    std::swap(tried[0], tried[1]);
  for (std::string &candidate : tried) {
    candidate = (path.parent_path() / candidate).string();
    if (isRegularFile(candidate))
      return candidate;
  }
  fail(images, "no labels file beside the images: tried '" + tried[0] +
                   "' and '" + tried[1] + "'; give one with the labels option");
}

} // namespace

bool isIdx(const std::vector<uint8_t> &head) {
  return head.size() >= 4 && head[0] == 0 && head[1] == 0 &&
         idxTypeName(head[2]) && head[3] >= 1 && head[3] <= 4;
}

std::unique_ptr<Dataset> openIdx(std::unique_ptr<Source> file,
                                 const OpenOptions &options) {
  const std::string &path = file->path();
  std::vector<uint8_t> head = file->head(16);
  if (head[2] != 0x08)
    fail(path, std::string("IDX element type ") + idxTypeName(head[2]) +
                   " is not supported: images must be uint8");
  if (head[3] == 1)
    fail(path, "an IDX labels file (1 dimension), not images");
  if (head[3] != 3)
    fail(path, "IDX images have 3 dimensions (N x H x W), this file has " +
                   std::to_string(head[3]));
  if (head.size() < 16)
    fail(path, "truncated: the IDX header needs 16 bytes, the file has " +
                   std::to_string(head.size()));
  int64_t n = bigEndian32(&head[4]), h = bigEndian32(&head[8]),
          w = bigEndian32(&head[12]);
  if (n == 0)
    fail(path, "no images: the IDX header gives 0 of them");
  // At most 2^96 bytes in theory: compare without overflowing.
  int64_t bytes = mulOrNeg(mulOrNeg(n, h), w), have = file->size() - 16;
  std::string what = std::to_string(n) + " images of " + std::to_string(h) +
                     "x" + std::to_string(w);
  if (bytes < 0 || bytes > have)
    fail(path, "truncated: " + what + " uint8 need " +
                   (bytes < 0 ? "more than 2^63" : std::to_string(bytes)) +
                   " bytes after the header, the file has " +
                   std::to_string(have));
  if (bytes < have)
    fail(path, std::to_string(have - bytes) +
                   " bytes after the last image (the header gives " + what +
                   ")");
  ImageShape stored{1, h, w};
  if (stored != options.model)
    fail(path, "images of " + toString(stored) + ", the model takes " +
                   toString(options.model));

  std::string labelsPath =
      options.labels.empty() ? labelsBeside(path) : options.labels;
  std::vector<int32_t> labels = readLabelsFile(labelsPath, n);

  StoredImages images;
  images.offset = 16;
  images.stride = h * w;
  images.shape = stored;
  images.type = StoredImages::Type::U8;
  std::string description = "IDX '" + path + "': " + what + " uint8";
  return makeArrayDataset(std::move(file), images, std::move(labels),
                          description);
}

} // namespace hdrt::data
