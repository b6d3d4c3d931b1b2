//===- Npy.cpp - NumPy .npy arrays of images ------------------------------===//
//
// A .npy file is a short header (a Python dict literal giving the dtype, the
// order and the shape) and the array's bytes, so an image array saved with
// np.save can be read in place with pread, sample by sample, however large
// it is. The header is parsed by a small grammar of its own, not trusted:
// every size it gives is checked against the file before anything is
// allocated. Images are uint8 or float32, NCHW, NHWC, or N x H x W for a
// one-channel model; the labels come from a second file.
//
//===----------------------------------------------------------------------===//

#include "Formats.h"

#include <cctype>
#include <cstring>

namespace hdrt::data {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;

/// The header dictionary's parser: {'key': value, ...} where a value is a
/// string, True/False, or a tuple of non-negative integers.
class DictParser {
public:
  DictParser(const std::string &text, const std::string &path)
      : text(text), path(path) {}

  NpyHeader parse() {
    NpyHeader h;
    bool seen[3] = {false, false, false};
    expect('{');
    while (!peek('}')) {
      std::string key = string();
      expect(':');
      if (key == "descr") {
        h.descr = string();
        seen[0] = true;
      } else if (key == "fortran_order") {
        h.fortranOrder = boolean();
        seen[1] = true;
      } else if (key == "shape") {
        h.shape = tuple();
        seen[2] = true;
      } else {
        bad("an unknown key '" + key + "'");
      }
      if (!peek('}'))
        expect(',');
    }
    expect('}');
    skipSpace();
    if (pos != text.size())
      bad("text after the dictionary");
    if (!seen[0] || !seen[1] || !seen[2])
      bad("it lacks one of 'descr', 'fortran_order', 'shape'");
    return h;
  }

private:
  [[noreturn]] void bad(const std::string &what) {
    std::string shown = text.substr(0, 200) + (text.size() > 200 ? "..." : "");
    fail(path, "bad .npy header: " + what + " (at character " +
                   std::to_string(pos) + " of \"" + shown + "\")");
  }
  void skipSpace() {
    while (pos < text.size() && std::isspace((unsigned char)text[pos]))
      ++pos;
  }
  bool peek(char c) {
    skipSpace();
    return pos < text.size() && text[pos] == c;
  }
  void expect(char c) {
    if (!peek(c))
      bad(std::string("expected '") + c + "'");
    ++pos;
  }
  std::string string() {
    skipSpace();
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      bad("expected a string");
    char quote = text[pos++];
    size_t end = text.find(quote, pos);
    if (end == std::string::npos)
      bad("an unterminated string");
    std::string s = text.substr(pos, end - pos);
    pos = end + 1;
    return s;
  }
  bool boolean() {
    skipSpace();
    for (auto [word, value] : {std::pair{"True", true}, {"False", false}})
      if (text.compare(pos, strlen(word), word) == 0) {
        pos += strlen(word);
        return value;
      }
    bad("expected True or False");
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> dims;
    expect('(');
    while (!peek(')')) {
      if (!std::isdigit((unsigned char)text[pos]))
        bad("expected a dimension");
      int64_t d = 0;
      while (pos < text.size() && std::isdigit((unsigned char)text[pos])) {
        d = mulOrNeg(d, 10);
        if (d < 0 || d > INT64_MAX - 9)
          bad("a dimension too large");
        d += text[pos++] - '0';
      }
      if (pos < text.size() && text[pos] == 'L') // Python 2's long
        ++pos;
      dims.push_back(d);
      if (!peek(')'))
        expect(',');
    }
    expect(')');
    return dims;
  }

  const std::string &text;
  const std::string &path;
  size_t pos = 0;
};

} // namespace

bool isNpy(const std::vector<uint8_t> &head) {
  return head.size() >= kMagicBytes &&
         std::memcmp(head.data(), kMagic, kMagicBytes) == 0;
}

NpyHeader readNpyHeader(const Source &file) {
  const std::string &path = file.path();
  std::vector<uint8_t> pre = file.head(12);
  if (pre.size() < 10)
    fail(path, "truncated: the .npy header needs at least 10 bytes, the "
               "file has " +
                   std::to_string(pre.size()));
  int major = pre[6], minor = pre[7];
  if (major < 1 || major > 3)
    fail(path, "unsupported .npy format version " + std::to_string(major) +
                   "." + std::to_string(minor) + " (1.0, 2.0, 3.0 are)");
  int64_t lengthBytes = major == 1 ? 2 : 4;
  if (int64_t(pre.size()) < 8 + lengthBytes)
    fail(path, "truncated: the .npy header's length is cut off");
  int64_t length = pre[8] | pre[9] << 8;
  if (major > 1)
    length |= int64_t(pre[10]) << 16 | int64_t(pre[11]) << 24;
  int64_t start = 8 + lengthBytes;
  // NumPy itself reads no more than 10000 bytes of header by default.
  if (length > (1 << 20))
    fail(path, "bad .npy header: " + std::to_string(length) +
                   " bytes of dictionary (more than 1 MiB)");
  if (length > file.size() - start)
    fail(path, "truncated: the .npy header gives " + std::to_string(length) +
                   " bytes of dictionary, the file has " +
                   std::to_string(file.size() - start) + " after the length");
  std::string text(length, '\0');
  file.read(start, length, text.data());
  NpyHeader header = DictParser(text, path).parse();
  header.dataOffset = start + length;
  return header;
}

std::unique_ptr<Dataset> openNpy(std::unique_ptr<Source> file,
                                 const OpenOptions &options) {
  const std::string &path = file->path();
  NpyHeader header = readNpyHeader(*file);
  StoredImages images;
  if (header.descr == "|u1")
    images.type = StoredImages::Type::U8;
  else if (header.descr == "<f4")
    images.type = StoredImages::Type::F32;
  else
    fail(path, "images of dtype '" + header.descr +
                   "' are not supported: they must be uint8 ('|u1') or "
                   "float32 ('<f4')");
  if (header.fortranOrder)
    fail(path, "fortran_order True is not supported: save a C-ordered "
               "array (np.ascontiguousarray)");

  // The shape as the file has it, for messages.
  std::string shapeText = "(";
  for (size_t i = 0; i < header.shape.size(); ++i)
    shapeText += (i ? ", " : "") + std::to_string(header.shape[i]);
  shapeText += header.shape.size() == 1 ? ",)" : ")";

  const ImageShape &m = options.model;
  const std::vector<int64_t> &s = header.shape;
  std::string layout;
  if (s.size() == 4 && ImageShape{s[1], s[2], s[3]} == m) {
    layout = "NCHW";
  } else if (s.size() == 4 && ImageShape{s[3], s[1], s[2]} == m) {
    layout = "NHWC";
    images.nhwc = true;
  } else if (s.size() == 3 && ImageShape{1, s[1], s[2]} == m) {
    layout = "NHW";
  } else {
    fail(path, "an array of shape " + shapeText + " does not hold images of " +
                   toString(m) + ", the model's shape: it must be (N, " +
                   std::to_string(m.c) + ", " + std::to_string(m.h) + ", " +
                   std::to_string(m.w) + "), (N, " + std::to_string(m.h) +
                   ", " + std::to_string(m.w) + ", " + std::to_string(m.c) +
                   ")" +
                   (m.c == 1 ? ", or (N, " + std::to_string(m.h) + ", " +
                                   std::to_string(m.w) + ")"
                             : std::string()));
  }
  int64_t n = s[0];
  if (n == 0)
    fail(path, "no images: the array's shape is " + shapeText);
  images.shape = m;
  images.offset = header.dataOffset;
  images.stride = m.volume() * images.elementBytes();
  int64_t bytes = mulOrNeg(n, images.stride);
  int64_t have = file->size() - header.dataOffset;
  if (bytes < 0 || bytes > have)
    fail(path, "truncated: an array of shape " + shapeText + " and dtype " +
                   header.descr + " needs " +
                   (bytes < 0 ? "more than 2^63" : std::to_string(bytes)) +
                   " bytes after the header, the file has " +
                   std::to_string(have));
  if (bytes < have)
    fail(path, std::to_string(have - bytes) +
                   " bytes after the array's data (its shape is " + shapeText +
                   ")");

  if (options.labels.empty())
    fail(path, "a .npy file of images needs a labels file (a .npy or IDX "
               "file of " +
                   std::to_string(n) + " integers)");
  std::vector<int32_t> labels = readLabelsFile(options.labels, n);
  std::string description = "NumPy '" + path + "': " + std::to_string(n) +
                            " images of " + toString(m) + " " +
                            typeName(images.type) + " (" + layout + ")";
  return makeArrayDataset(std::move(file), images, std::move(labels),
                          description);
}

} // namespace hdrt::data
