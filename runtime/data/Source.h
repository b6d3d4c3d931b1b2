//===- Source.h - a data file's bytes, on disk or gunzipped -----*- C++ -*-===//
//
// The readers see a file as bytes at offsets, whether they stay on disk (read
// with pread, so several threads read at once without a shared file
// position) or were gunzipped into memory at open. Every read is checked:
// the readers compare sizes against headers before reading, and a short read
// (a file that shrank) still ends in a DataError naming the file.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_DATA_SOURCE_H
#define HDRT_DATA_SOURCE_H

#include "hdrt/data/Dataset.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hdrt::data {

/// Throws DataError("<path>: <reason>").
[[noreturn]] void fail(const std::string &path, const std::string &reason);

/// a * b, or -1 when it would overflow int64 (both non-negative).
int64_t mulOrNeg(int64_t a, int64_t b);

class Source {
public:
  /// Opens a regular file; gunzips it into memory when it starts with the
  /// gzip magic.
  static std::unique_ptr<Source> open(const std::string &path);
  ~Source();
  Source(const Source &) = delete;
  Source &operator=(const Source &) = delete;

  const std::string &path() const { return path_; }
  /// Whether the bytes are the file's content gunzipped.
  bool gunzipped() const { return fd_ < 0; }
  /// The number of bytes (after gunzipping).
  int64_t size() const { return size_; }
  /// Copies bytes [offset, offset + bytes) into `out`; throws DataError
  /// when they are not all there.
  void read(int64_t offset, int64_t bytes, void *out) const;
  /// Up to `bytes` bytes from the start (fewer for a shorter file).
  std::vector<uint8_t> head(int64_t bytes) const;

private:
  Source(std::string path) : path_(std::move(path)) {}

  std::string path_;
  int fd_ = -1;
  int64_t size_ = 0;
  std::vector<uint8_t> memory_;
};

/// The whole of the gzip data `compressed` (one or more members),
/// decompressed; throws DataError naming `path` when it is corrupt or
/// truncated.
std::vector<uint8_t> gunzip(const std::vector<uint8_t> &compressed,
                            const std::string &path);

/// Whether `bytes` start with the gzip magic (1f 8b).
bool isGzip(const std::vector<uint8_t> &bytes);

} // namespace hdrt::data

#endif // HDRT_DATA_SOURCE_H
