//===- Labels.cpp - labels files: IDX or a 1-D .npy array -----------------===//
//
// IDX images and .npy arrays keep their labels in a second file. It is read
// whole at open (4 bytes a sample at most, where the images are hundreds),
// so that every label is checked before training starts: the count against
// the images, each value against int32 and against being negative (a
// negative class index would read outside the softmax).
//
//===----------------------------------------------------------------------===//

#include "Formats.h"

#include <cstring>
#include <limits>

namespace hdrt::data {

namespace {

/// How a .npy labels file stores an integer.
struct IntType {
  const char *descr;
  int bytes;
  bool isSigned;
};

constexpr IntType kIntTypes[] = {
    {"|u1", 1, false}, {"|i1", 1, true},  {"<i2", 2, true},  {"<i4", 4, true},
    {"<i8", 8, true},  {"<u2", 2, false}, {"<u4", 4, false}, {"<u8", 8, false},
};

/// The little-endian integer at `p`, as int64 (uint64 values above 2^63
/// as INT64_MAX, which fails the int32 check like them).
int64_t loadInt(const uint8_t *p, const IntType &t) {
  uint64_t u = 0;
  for (int i = t.bytes - 1; i >= 0; --i)
    u = u << 8 | p[i];
  if (t.isSigned && t.bytes < 8 && (u >> (8 * t.bytes - 1)) & 1)
    u |= ~uint64_t(0) << (8 * t.bytes); // sign-extend
  if (!t.isSigned && t.bytes == 8 && u > uint64_t(INT64_MAX))
    return INT64_MAX; // too large either way
  return int64_t(u);
}

std::string countMismatch(int64_t have, int64_t count) {
  return std::to_string(have) + " labels for " + std::to_string(count) +
         " images";
}

std::vector<int32_t> idxLabels(const Source &file, int64_t count) {
  const std::string &path = file.path();
  std::vector<uint8_t> head = file.head(8);
  if (head.size() < 8)
    fail(path, "truncated: the IDX labels header needs 8 bytes, the file "
               "has " +
                   std::to_string(head.size()));
  int64_t n = bigEndian32(&head[4]);
  if (n != count)
    fail(path, countMismatch(n, count));
  if (file.size() - 8 != n)
    fail(path, std::string(file.size() - 8 < n ? "truncated: " : "") +
                   "the IDX header gives " + std::to_string(n) +
                   " labels, the file has " + std::to_string(file.size() - 8) +
                   " bytes after it");
  std::vector<uint8_t> bytes(n);
  file.read(8, n, bytes.data());
  return std::vector<int32_t>(bytes.begin(), bytes.end());
}

std::vector<int32_t> npyLabels(const Source &file, int64_t count) {
  const std::string &path = file.path();
  NpyHeader header = readNpyHeader(file);
  const IntType *type = nullptr;
  for (const IntType &t : kIntTypes)
    if (header.descr == t.descr)
      type = &t;
  if (!type)
    fail(path, "labels of dtype '" + header.descr +
                   "' are not supported: they must be integers (|u1, |i1, "
                   "<i2, <i4, <i8, <u2, <u4, <u8)");
  if (header.fortranOrder)
    fail(path, "fortran_order True is not supported");
  if (header.shape.size() != 1)
    fail(path, "labels must be a 1-D array (N,), this one has " +
                   std::to_string(header.shape.size()) + " dimensions");
  int64_t n = header.shape[0];
  if (n != count)
    fail(path, countMismatch(n, count));
  int64_t bytes = mulOrNeg(n, type->bytes);
  int64_t have = file.size() - header.dataOffset;
  if (bytes < 0 || bytes > have)
    fail(path, "truncated: " + std::to_string(n) + " labels of " +
                   header.descr + " need " + std::to_string(bytes) +
                   " bytes, the file has " + std::to_string(have));
  if (bytes < have)
    fail(path, std::to_string(have - bytes) + " bytes after the last label");
  std::vector<uint8_t> raw(bytes);
  file.read(header.dataOffset, bytes, raw.data());
  std::vector<int32_t> labels(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = loadInt(raw.data() + i * type->bytes, *type);
    if (v < 0)
      fail(path, "label " + std::to_string(v) + " of sample " +
                     std::to_string(i) + " is negative");
    if (v > std::numeric_limits<int32_t>::max())
      fail(path, "label " + std::to_string(v) + " of sample " +
                     std::to_string(i) + " does not fit in int32");
    labels[i] = int32_t(v);
  }
  return labels;
}

} // namespace

std::vector<int32_t> readLabelsFile(const std::string &path, int64_t count) {
  std::unique_ptr<Source> file = Source::open(path);
  std::vector<uint8_t> head = file->head(8);
  if (isIdxLabels(head))
    return idxLabels(*file, count);
  if (isNpy(head))
    return npyLabels(*file, count);
  if (isIdx(head))
    fail(path, "an IDX file that is not labels: labels are uint8 with 1 "
               "dimension (magic 0x00000801)");
  fail(path, "not a labels file: neither IDX (magic 0x00000801) nor .npy");
}

} // namespace hdrt::data
