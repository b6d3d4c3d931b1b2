//===- Source.cpp - a data file's bytes, on disk or gunzipped -------------===//
//
// A plain file stays on disk and every read is one pread: the data sets are
// often larger than what a rank should hold, and pread shares no file
// position between threads. A gzip file cannot be read at an offset, so it
// is decompressed once at open and read from memory after that.
//
//===----------------------------------------------------------------------===//

#include "Source.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hdrt::data {

void fail(const std::string &path, const std::string &reason) {
  throw DataError(path + ": " + reason);
}

int64_t mulOrNeg(int64_t a, int64_t b) {
  int64_t product;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &product))
    return -1;
  return product;
}

namespace {

/// Reads exactly `bytes` bytes at `offset` of `fd`, or throws.
void preadAll(int fd, const std::string &path, int64_t offset, int64_t bytes,
              void *out) {
  char *p = static_cast<char *>(out);
  while (bytes > 0) {
    ssize_t got = ::pread(fd, p, bytes, offset);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      fail(path, std::string("cannot read it: ") + std::strerror(errno));
    if (got == 0)
      fail(path, "cannot read it: the file ends at byte " +
                     std::to_string(offset) + " (it shrank while open?)");
    p += got;
    bytes -= got;
    offset += got;
  }
}

} // namespace

std::unique_ptr<Source> Source::open(const std::string &path) {
  std::unique_ptr<Source> s(new Source(path));
  s->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (s->fd_ < 0)
    fail(path, std::string("cannot open it: ") + std::strerror(errno));
  struct stat st;
  if (fstat(s->fd_, &st) != 0)
    fail(path, std::string("cannot read it: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    fail(path, "not a regular file");
  s->size_ = st.st_size;
  if (!isGzip(s->head(2)))
    return s;
  std::vector<uint8_t> compressed(s->size_);
  preadAll(s->fd_, path, 0, s->size_, compressed.data());
  s->memory_ = gunzip(compressed, path);
  s->size_ = s->memory_.size();
  ::close(s->fd_);
  s->fd_ = -1;
  return s;
}

Source::~Source() {
  if (fd_ >= 0)
    ::close(fd_);
}

void Source::read(int64_t offset, int64_t bytes, void *out) const {
  if (bytes == 0)
    return;
  if (offset < 0 || bytes < 0 || offset > size_ || bytes > size_ - offset)
    fail(path_, "truncated: reading " + std::to_string(bytes) + " bytes at " +
                    std::to_string(offset) + " of " + std::to_string(size_) +
                    (gunzipped() ? " (gunzipped)" : ""));
  if (fd_ >= 0)
    preadAll(fd_, path_, offset, bytes, out);
  else
    std::memcpy(out, memory_.data() + offset, bytes);
}

std::vector<uint8_t> Source::head(int64_t bytes) const {
  std::vector<uint8_t> out(std::min(bytes, size_));
  read(0, out.size(), out.data());
  return out;
}

bool isGzip(const std::vector<uint8_t> &bytes) {
  return bytes.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
}

} // namespace hdrt::data
