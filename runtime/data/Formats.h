//===- Formats.h - the readers openDataset chooses between ------*- C++ -*-===//
//
// Each format's reader is one file with one entry point here; openDataset
// (Dataset.cpp) looks at the file and calls one of them. What several
// readers share is here too: the labels files (IDX and .npy), the .npy
// header, and reading a region of images stored as dense arrays.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_DATA_FORMATS_H
#define HDRT_DATA_FORMATS_H

#include "Source.h"

#include "hdrt/data/Dataset.h"

#include <memory>
#include <string>
#include <vector>

namespace hdrt::data {

/// Whether `head` (a file's first bytes) is an IDX header: two zero bytes,
/// an element type code, and a dimension count.
bool isIdx(const std::vector<uint8_t> &head);
/// Whether an IDX `head` is a labels file: uint8, one dimension.
inline bool isIdxLabels(const std::vector<uint8_t> &head) {
  return isIdx(head) && head[2] == 0x08 && head[3] == 1;
}
/// The big-endian uint32 at `p` (IDX's sizes).
inline uint32_t bigEndian32(const uint8_t *p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 |
         p[3];
}
/// Whether `head` starts with the .npy magic "\x93NUMPY".
bool isNpy(const std::vector<uint8_t> &head);

std::unique_ptr<Dataset> openIdx(std::unique_ptr<Source> images,
                                 const OpenOptions &options);
std::unique_ptr<Dataset> openNpy(std::unique_ptr<Source> images,
                                 const OpenOptions &options);
std::unique_ptr<Dataset> openRaw(std::unique_ptr<Source> file,
                                 const OpenOptions &options);
std::unique_ptr<Dataset> openImageFolder(const std::string &root,
                                         const OpenOptions &options);

/// The labels in `path`, an IDX labels file (magic 0x00000801) or a 1-D
/// .npy array of integers, plain or gzip. Throws DataError naming `path`
/// unless it holds exactly `count` labels, each in [0, 2^31).
std::vector<int32_t> readLabelsFile(const std::string &path, int64_t count);

/// A .npy file's header.
struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  /// Where the array's data starts.
  int64_t dataOffset = 0;
};
/// Reads and checks the header (magic, version, the dictionary's syntax and
/// keys); throws DataError naming the file.
NpyHeader readNpyHeader(const Source &file);

/// Images stored as a dense array in a Source: sample i's first value at
/// `offset + i * stride` bytes, its values NCHW or NHWC within it.
struct StoredImages {
  enum class Type { U8, F32 };
  const Source *source = nullptr;
  int64_t offset = 0;
  int64_t stride = 0;
  ImageShape shape;
  bool nhwc = false;
  Type type = Type::U8;

  /// Reads `region` of sample `index` (both checked by the caller) into
  /// `out` as Dataset::read specifies, with one read of the bytes that
  /// span the region.
  void read(int64_t index, const Region &region, float *out) const;
  int64_t elementBytes() const { return type == Type::U8 ? 1 : 4; }
};

const char *typeName(StoredImages::Type type);

/// A data set of `images` (in `file`) and their `labels`, one per image;
/// describe() gives `description`.
std::unique_ptr<Dataset> makeArrayDataset(std::unique_ptr<Source> file,
                                          StoredImages images,
                                          std::vector<int32_t> labels,
                                          std::string description);

} // namespace hdrt::data

#endif // HDRT_DATA_FORMATS_H
