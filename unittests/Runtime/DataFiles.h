//===- DataFiles.h - data-set files written from the tests ------*- C++ -*-===//
//
// The data-set tests write every file they read: IDX, .npy and raw files
// byte by byte as their formats define them, gzip through zlib, PNG through
// libpng and JPEG through libjpeg, into a temporary directory of each test's
// own. And the checks they share: a region read against a loop over its
// values, the message an open throws.
//
//===----------------------------------------------------------------------===//

#ifndef HD_UNITTESTS_RUNTIME_DATAFILES_H
#define HD_UNITTESTS_RUNTIME_DATAFILES_H

#include "hdrt/data/Dataset.h"

#include <gtest/gtest.h>

#include <jpeglib.h>
#include <png.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace datafiles {

using namespace hdrt::data;
namespace fs = std::filesystem;

using Bytes = std::vector<uint8_t>;

/// A fresh directory, removed with everything in it at the end of a test.
class TempDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern =
        (fs::temp_directory_path() / "hd-dataset-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string file(const std::string &name) const {
    return (dir / name).string();
  }

  fs::path dir;
};

inline Bytes randomBytes(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  Bytes b(n);
  for (uint8_t &v : b)
    v = gen() & 0xff;
  return b;
}

inline std::vector<float> randomFloats(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, 3.0f);
  std::vector<float> v(n);
  for (float &f : v)
    f = dist(gen);
  return v;
}

inline void writeFile(const std::string &path, const Bytes &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  ASSERT_TRUE(out.good()) << path;
}

inline void writeGz(const std::string &path, const Bytes &bytes) {
  gzFile gz = gzopen(path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, bytes.data(), bytes.size()), int(bytes.size()));
  ASSERT_EQ(gzclose(gz), Z_OK);
}

inline void appendBigEndian(Bytes &b, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8)
    b.push_back(v >> s & 0xff);
}

inline Bytes idxImages(uint32_t n, uint32_t h, uint32_t w,
                       const Bytes &pixels) {
  Bytes b = {0, 0, 0x08, 0x03};
  appendBigEndian(b, n);
  appendBigEndian(b, h);
  appendBigEndian(b, w);
  b.insert(b.end(), pixels.begin(), pixels.end());
  return b;
}

inline Bytes idxLabels(const Bytes &labels) {
  Bytes b = {0, 0, 0x08, 0x01};
  appendBigEndian(b, labels.size());
  b.insert(b.end(), labels.begin(), labels.end());
  return b;
}

template <typename T> inline Bytes bytesOf(const std::vector<T> &values) {
  Bytes b(values.size() * sizeof(T));
  std::memcpy(b.data(), values.data(), b.size());
  return b;
}

/// A .npy file as np.save writes it (version 1.0 unless told).
inline Bytes npy(const std::string &descr, const std::vector<int64_t> &shape,
                 const Bytes &data, bool fortran = false, int major = 1) {
  std::string dict = "{'descr': '" + descr +
                     "', 'fortran_order': " + (fortran ? "True" : "False") +
                     ", 'shape': (";
  for (int64_t d : shape)
    dict += std::to_string(d) + ", ";
  if (shape.size() > 1)
    dict.resize(dict.size() - 2);
  dict += "), }";
  size_t pre = major == 1 ? 10 : 12;
  while ((pre + dict.size() + 1) % 64 != 0)
    dict += ' ';
  dict += '\n';
  Bytes b = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(major), 0};
  size_t len = dict.size();
  b.push_back(len & 0xff);
  b.push_back(len >> 8 & 0xff);
  if (major > 1) {
    b.push_back(len >> 16 & 0xff);
    b.push_back(len >> 24 & 0xff);
  }
  b.insert(b.end(), dict.begin(), dict.end());
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

/// A raw file: per sample an int32 label then its float32 values.
inline Bytes raw(const std::vector<int32_t> &labels,
                 const std::vector<float> &values) {
  Bytes b;
  size_t per = values.size() / labels.size();
  for (size_t i = 0; i < labels.size(); ++i) {
    Bytes l = bytesOf(std::vector<int32_t>{labels[i]});
    Bytes v = bytesOf(std::vector<float>(values.begin() + i * per,
                                         values.begin() + (i + 1) * per));
    b.insert(b.end(), l.begin(), l.end());
    b.insert(b.end(), v.begin(), v.end());
  }
  return b;
}

/// A PNG through libpng's simplified writer; `format` a PNG_FORMAT_*.
inline void writePng(const std::string &path, int w, int h, uint32_t format,
                     const Bytes &pixels) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = w;
  image.height = h;
  image.format = format;
  ASSERT_EQ(PNG_IMAGE_SIZE(image), pixels.size());
  ASSERT_NE(png_image_write_to_file(&image, path.c_str(), 0, pixels.data(), 0,
                                    nullptr),
            0)
      << image.message;
}

/// A w x h RGB JPEG through libjpeg.
inline void writeJpeg(const std::string &path, int w, int h, const Bytes &rgb) {
  jpeg_compress_struct cinfo;
  jpeg_error_mgr err;
  cinfo.err = jpeg_std_error(&err);
  jpeg_create_compress(&cinfo);
  FILE *out = std::fopen(path.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  jpeg_stdio_dest(&cinfo, out);
  cinfo.image_width = w;
  cinfo.image_height = h;
  cinfo.input_components = 3;
  cinfo.in_color_space = JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, 95, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<uint8_t *>(&rgb[cinfo.next_scanline * w * 3]);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  std::fclose(out);
}

/// w x h pixels of one RGB color.
inline Bytes constantRgb(int w, int h, const uint8_t rgb[3]) {
  Bytes b(w * h * 3);
  for (int i = 0; i < w * h; ++i)
    std::memcpy(&b[i * 3], rgb, 3);
  return b;
}

/// Reads `r` of sample `index` and compares every value with `expected`.
inline void
expectRegion(const Dataset &ds, int64_t index, const Region &r,
             const std::function<float(int64_t, int64_t, int64_t)> &expected,
             float tolerance = 0) {
  std::vector<float> out(r.volume(), -1.0f);
  ds.read(index, r, out.data());
  size_t k = 0;
  for (int64_t c = r.c0; c < r.c1; ++c)
    for (int64_t y = r.y0; y < r.y1; ++y)
      for (int64_t x = r.x0; x < r.x1; ++x, ++k) {
        float want = expected(c, y, x);
        if (tolerance == 0)
          ASSERT_EQ(out[k], want)
              << "sample " << index << " at " << c << "," << y << "," << x;
        else
          ASSERT_NEAR(out[k], want, tolerance)
              << "sample " << index << " at " << c << "," << y << "," << x;
      }
}

/// The message openDataset throws; fails the test when it opens.
inline std::string openError(const std::string &path,
                             const OpenOptions &options) {
  try {
    openDataset(path, options);
  } catch (const DataError &e) {
    return e.what();
  }
  ADD_FAILURE() << "'" << path << "' opened";
  return "";
}

#define EXPECT_CONTAINS(text, part)                                            \
  EXPECT_NE(std::string(text).find(part), std::string::npos)                   \
      << "'" << (text) << "' lacks '" << (part) << "'"

inline OpenOptions model(int64_t c, int64_t h, int64_t w,
                         const std::string &labels = "") {
  OpenOptions o;
  o.model = {c, h, w};
  o.labels = labels;
  return o;
}

/// A file's bytes.
inline Bytes readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(in)),
               std::istreambuf_iterator<char>());
}

} // namespace datafiles

#endif // HD_UNITTESTS_RUNTIME_DATAFILES_H
