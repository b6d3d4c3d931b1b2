//===- Gzip.cpp - gunzip a whole file in memory ---------------------------===//
//
// MNIST and Fashion-MNIST ship as .gz files, and people keep them that way.
// A gzip stream has no index, so reading sample i means decompressing
// everything before it: the file is decompressed once at open instead
// (Fashion-MNIST's training images are 47 MB). The output grows with what
// the data really decompresses to, never with a size field, and
// concatenated members (what `cat a.gz b.gz` gives) are read as one file,
// as gzip itself does.
//
//===----------------------------------------------------------------------===//

#include "Source.h"

#include <zlib.h>

#include <algorithm>
#include <climits>

namespace hdrt::data {

namespace {

/// Ends a zlib stream on every path out of gunzip.
struct Inflater {
  z_stream z{};
  bool ready = false;
  ~Inflater() {
    if (ready)
      inflateEnd(&z);
  }
};

} // namespace

std::vector<uint8_t> gunzip(const std::vector<uint8_t> &compressed,
                            const std::string &path) {
  Inflater in;
  // 16 + MAX_WBITS: a gzip header and trailer, not a zlib one.
  if (inflateInit2(&in.z, 16 + MAX_WBITS) != Z_OK)
    fail(path, "cannot start zlib's inflate");
  in.ready = true;

  std::vector<uint8_t> out;
  // The trailer's size (modulo 2^32) sizes the first buffer of a
  // one-member file, as long as deflate could reach it (ratio < 1032).
  size_t guess = compressed.size() * 2 + 1024;
  if (compressed.size() >= 18) {
    const uint8_t *t = compressed.data() + compressed.size() - 4;
    size_t isize = t[0] | t[1] << 8 | t[2] << 16 | size_t(t[3]) << 24;
    if (isize / 1100 < compressed.size())
      guess = isize + 1;
  }
  out.resize(guess);

  size_t inPos = 0, outPos = 0;
  while (true) {
    if (outPos == out.size())
      out.resize(out.size() * 2);
    size_t inLeft = compressed.size() - inPos, outLeft = out.size() - outPos;
    in.z.next_in = const_cast<Bytef *>(compressed.data() + inPos);
    in.z.avail_in = std::min<size_t>(inLeft, UINT_MAX);
    in.z.next_out = out.data() + outPos;
    in.z.avail_out = std::min<size_t>(outLeft, UINT_MAX);
    uInt givenIn = in.z.avail_in, givenOut = in.z.avail_out;
    int rc = inflate(&in.z, Z_NO_FLUSH);
    inPos += givenIn - in.z.avail_in;
    outPos += givenOut - in.z.avail_out;
    if (rc == Z_STREAM_END) {
      // Another member may follow; anything else after the data is an
      // error rather than silently ignored.
      if (inPos == compressed.size())
        break;
      if (compressed.size() - inPos < 2 || compressed[inPos] != 0x1f ||
          compressed[inPos + 1] != 0x8b)
        fail(path,
             "corrupt gzip data: " + std::to_string(compressed.size() - inPos) +
                 " bytes after the compressed stream");
      inflateReset(&in.z);
      continue;
    }
    if (rc == Z_OK || rc == Z_BUF_ERROR) {
      if (inPos == compressed.size() && outPos < out.size())
        fail(path, "truncated gzip data: the compressed stream ends early");
      continue; // more input to take, or a full buffer to grow
    }
    fail(path, std::string("corrupt gzip data: ") +
                   (in.z.msg ? in.z.msg : "zlib error " + std::to_string(rc)));
  }
  out.resize(outPos);
  out.shrink_to_fit();
  return out;
}

} // namespace hdrt::data
