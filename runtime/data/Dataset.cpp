//===- Dataset.cpp - open a data set, finding its format from its bytes ---===//
//
// File names lie (a .gz that is not compressed, an .npy renamed .bin), so
// the format is read from the file: a directory is an ImageFolder, gzip data
// is gunzipped first, and the first bytes then tell IDX, .npy and hd's raw
// format apart. Raw files have no magic, so anything that is not one of the
// others is read as raw; its size check is then what catches a wrong file.
// IDX is recognized by its whole family of magics (two zero bytes, a type
// code, a dimension count), not only the uint8 N x H x W one, so that an
// IDX labels file or a float IDX file given as images gets a message that
// says so instead of a raw-format size error.
//
//===----------------------------------------------------------------------===//

#include "Formats.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace hdrt::data {

std::string toString(const ImageShape &s) {
  return std::to_string(s.c) + "x" + std::to_string(s.h) + "x" +
         std::to_string(s.w);
}

void Dataset::checkIndex(int64_t index) const {
  if (index < 0 || index >= size_)
    throw std::out_of_range("sample " + std::to_string(index) +
                            " of a data set of " + std::to_string(size_));
}

void Dataset::checkRegion(const Region &r) const {
  if (r.c0 < 0 || r.c0 > r.c1 || r.c1 > shape_.c || r.y0 < 0 || r.y0 > r.y1 ||
      r.y1 > shape_.h || r.x0 < 0 || r.x0 > r.x1 || r.x1 > shape_.w)
    throw std::out_of_range(
        "region [" + std::to_string(r.c0) + "," + std::to_string(r.c1) + ")x[" +
        std::to_string(r.y0) + "," + std::to_string(r.y1) + ")x[" +
        std::to_string(r.x0) + "," + std::to_string(r.x1) + ") of images of " +
        toString(shape_));
}

std::unique_ptr<Dataset> openDataset(const std::string &path,
                                     const OpenOptions &options) {
  const ImageShape &m = options.model;
  int64_t volume = mulOrNeg(mulOrNeg(m.c, m.h), m.w);
  if (m.c <= 0 || m.h <= 0 || m.w <= 0 || volume < 0 ||
      volume > (int64_t(1) << 40))
    fail(path, "the model's image shape " + toString(m) + " is not valid");
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    fail(path, std::string("cannot open it: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    return openImageFolder(path, options);

  std::unique_ptr<Source> file = Source::open(path);
  std::vector<uint8_t> head = file->head(16);
  if (isIdx(head))
    return openIdx(std::move(file), options);
  if (isNpy(head))
    return openNpy(std::move(file), options);
  return openRaw(std::move(file), options);
}

} // namespace hdrt::data
