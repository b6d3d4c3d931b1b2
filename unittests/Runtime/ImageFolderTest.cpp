//===- ImageFolderTest.cpp - PNG and JPEG folders against direct loops ----===//
//
// Images of the model's size must come back exact (byte / 255, gray
// replicated, alpha dropped, palettes and 16-bit samples expanded); other
// sizes against a bilinear resize and center crop written here from the
// definition; a JPEG of one color within a small tolerance of it. Broken
// files are found at open (not an image, a cut header) or at read (a cut
// scan).
//
//===----------------------------------------------------------------------===//

#include "DataFiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace datafiles;

namespace {

class ImageFolderTest : public TempDirTest {};

//===----------------------------------------------------------------------===//
// ImageFolder
//===----------------------------------------------------------------------===//

/// The model: 3 x 5 x 4 (H = 5, W = 4).
constexpr int64_t MH = 5, MW = 4;

/// Channel c of pixel (y, x) of an interleaved image of `ch` channels,
/// converted to `modelC` channels as the readers' contract says.
double pixelValue(const Bytes &px, int64_t w, int ch, int64_t modelC, int64_t c,
                  int64_t y, int64_t x) {
  const uint8_t *p = &px[(y * w + x) * ch];
  if (ch < 3)
    return p[0];
  if (modelC == 3)
    return p[c];
  return 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
}

/// The image resized (aspect kept) to cover the model, center-cropped, by
/// the definition: half-pixel-centered bilinear on each axis.
float resizedValue(const Bytes &px, int64_t w, int64_t h, int ch,
                   int64_t modelC, int64_t c, int64_t y, int64_t x) {
  double scale = std::max(double(MH) / h, double(MW) / w);
  int64_t rh = double(MH) / h >= double(MW) / w ? MH : int64_t(h * scale);
  int64_t rw = double(MH) / h >= double(MW) / w ? int64_t(w * scale) : MW;
  int64_t top = (rh - MH) / 2, left = (rw - MW) / 2;
  auto axis = [](int64_t dst, int64_t in, int64_t out, int64_t &i0, int64_t &i1,
                 double &t) {
    double src = std::max(0.0, (dst + 0.5) * in / out - 0.5);
    i0 = std::min<int64_t>(int64_t(src), in - 1);
    i1 = std::min<int64_t>(i0 + 1, in - 1);
    t = src - i0;
  };
  int64_t y0, y1, x0, x1;
  double ty, tx;
  axis(y + top, h, rh, y0, y1, ty);
  axis(x + left, w, rw, x0, x1, tx);
  auto v = [&](int64_t yy, int64_t xx) {
    return pixelValue(px, w, ch, modelC, c, yy, xx);
  };
  double value = (1 - ty) * ((1 - tx) * v(y0, x0) + tx * v(y0, x1)) +
                 ty * ((1 - tx) * v(y1, x0) + tx * v(y1, x1));
  return float(value / 255.0);
}

TEST_F(ImageFolderTest, ImageFolder) {
  fs::path root = dir / "images";
  for (const char *c : {"cat", "dog", "emu"})
    fs::create_directories(root / c);
  Bytes rgb = randomBytes(MH * MW * 3, 10), gray = randomBytes(MH * MW, 11),
        rgba = randomBytes(MH * MW * 4, 12), wide = randomBytes(3 * 7 * 3, 13),
        tall = randomBytes(9 * 2, 14);
  // cat: a.png (RGB), b.PNG (gray); dog: c.png (RGBA), d.png (7 x 3, RGB),
  // e.png (2 x 9, gray), and below it (as torchvision, directories in path
  // order after the class's own files) a_dir/h.png, z/g.png; emu: f.jpeg.
  // Other files are not images.
  writePng((root / "cat/a.png").string(), MW, MH, PNG_FORMAT_RGB, rgb);
  writePng((root / "cat/b.PNG").string(), MW, MH, PNG_FORMAT_GRAY, gray);
  writePng((root / "dog/c.png").string(), MW, MH, PNG_FORMAT_RGBA, rgba);
  writePng((root / "dog/d.png").string(), 7, 3, PNG_FORMAT_RGB, wide);
  writePng((root / "dog/e.png").string(), 2, 9, PNG_FORMAT_GRAY, tall);
  const uint8_t color[3] = {200, 100, 50};
  writeJpeg((root / "emu/f.jpeg").string(), 16, 16, constantRgb(16, 16, color));
  fs::create_directories(root / "dog/z");
  fs::create_directories(root / "dog/a_dir");
  writePng((root / "dog/z/g.png").string(), MW, MH, PNG_FORMAT_GRAY, gray);
  writePng((root / "dog/a_dir/h.png").string(), MW, MH, PNG_FORMAT_RGB, rgb);
  writeFile((root / "dog/notes.txt").string(), {'h', 'i'});
  writeFile((root / "README").string(), {'h', 'i'});

  std::unique_ptr<Dataset> ds = openDataset(root.string(), model(3, MH, MW));
  ASSERT_EQ(ds->size(), 8);
  EXPECT_EQ(ds->describe(),
            "ImageFolder '" + root.string() +
                "': 8 images (7 PNG, 1 JPEG) in 3 classes, resized and "
                "cropped to 3x5x4 (uint8)");
  std::vector<int32_t> labels;
  for (int64_t i = 0; i < ds->size(); ++i)
    labels.push_back(ds->label(i));
  EXPECT_EQ(labels, (std::vector<int32_t>{0, 0, 1, 1, 1, 1, 1, 2}));

  for (Region r : {Region::whole(ds->shape()), Region{1, 3, 1, 4, 1, 3}}) {
    // The model's size: exact values, gray replicated, alpha dropped.
    expectRegion(*ds, 0, r, [&](int64_t c, int64_t y, int64_t x) {
      return rgb[(y * MW + x) * 3 + c] / 255.0f;
    });
    expectRegion(*ds, 1, r, [&](int64_t, int64_t y, int64_t x) {
      return gray[y * MW + x] / 255.0f;
    });
    expectRegion(*ds, 2, r, [&](int64_t c, int64_t y, int64_t x) {
      return rgba[(y * MW + x) * 4 + c] / 255.0f;
    });
    // Other sizes: resized and cropped.
    expectRegion(
        *ds, 3, r,
        [&](int64_t c, int64_t y, int64_t x) {
          return resizedValue(wide, 7, 3, 3, 3, c, y, x);
        },
        1e-5f);
    expectRegion(
        *ds, 4, r,
        [&](int64_t c, int64_t y, int64_t x) {
          return resizedValue(tall, 2, 9, 1, 3, c, y, x);
        },
        1e-5f);
    // Below the class directory: a_dir/h.png (RGB), then z/g.png (gray).
    expectRegion(*ds, 5, r, [&](int64_t c, int64_t y, int64_t x) {
      return rgb[(y * MW + x) * 3 + c] / 255.0f;
    });
    expectRegion(*ds, 6, r, [&](int64_t, int64_t y, int64_t x) {
      return gray[y * MW + x] / 255.0f;
    });
    expectRegion(
        *ds, 7, r,
        [&](int64_t c, int64_t, int64_t) { return color[c] / 255.0f; },
        3 / 255.0f);
  }
  // Not the identity: the wide image's crop is not its top-left corner.
  std::vector<float> out(MH * MW * 3);
  ds->read(3, Region::whole(ds->shape()), out.data());
  EXPECT_NE(out[0], wide[0] / 255.0f);

  // A one-channel model: luma of color images, gray as stored.
  ds = openDataset(root.string(), model(1, MH, MW));
  expectRegion(
      *ds, 0, Region::whole(ds->shape()),
      [&](int64_t, int64_t y, int64_t x) {
        return float(pixelValue(rgb, MW, 3, 1, 0, y, x) / 255.0);
      },
      1e-6f);
  expectRegion(
      *ds, 1, Region::whole(ds->shape()),
      [&](int64_t, int64_t y, int64_t x) { return gray[y * MW + x] / 255.0f; });
  expectRegion(
      *ds, 3, {0, 1, 0, MH, 0, MW},
      [&](int64_t, int64_t y, int64_t x) {
        return resizedValue(wide, 7, 3, 3, 1, 0, y, x);
      },
      1e-5f);
}

TEST_F(ImageFolderTest, PngDepthsAndPalettes) {
  fs::create_directories(dir / "root/x");
  // 16-bit gray: the high byte of each sample, as PIL takes it.
  std::vector<uint16_t> deep(MH * MW);
  std::mt19937 gen(15);
  for (uint16_t &v : deep)
    v = gen() & 0xffff;
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = MW;
  image.height = MH;
  image.format = PNG_FORMAT_LINEAR_Y;
  ASSERT_NE(png_image_write_to_file(&image, file("root/x/a.png").c_str(), 0,
                                    deep.data(), 0, nullptr),
            0)
      << image.message;
  // A palette: each index's RGB entry.
  Bytes palette = randomBytes(16 * 3, 16), indices(MH * MW);
  for (size_t i = 0; i < indices.size(); ++i)
    indices[i] = (i * 7) % 16;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = MW;
  image.height = MH;
  image.format = PNG_FORMAT_RGB_COLORMAP;
  image.colormap_entries = 16;
  ASSERT_NE(png_image_write_to_file(&image, file("root/x/b.png").c_str(), 0,
                                    indices.data(), 0, palette.data()),
            0)
      << image.message;

  std::unique_ptr<Dataset> ds = openDataset(file("root"), model(3, MH, MW));
  expectRegion(*ds, 0, Region::whole(ds->shape()),
               [&](int64_t, int64_t y, int64_t x) {
                 return (deep[y * MW + x] >> 8) / 255.0f;
               });
  expectRegion(*ds, 1, Region::whole(ds->shape()),
               [&](int64_t c, int64_t y, int64_t x) {
                 return palette[indices[y * MW + x] * 3 + c] / 255.0f;
               });
}

TEST_F(ImageFolderTest, CorruptImages) {
  fs::create_directories(dir / "root/a");
  writePng(file("root/a/good.png"), 2, 2, PNG_FORMAT_GRAY, {1, 2, 3, 4});
  writeFile(file("root/a/bad.png"), randomBytes(100, 1));
  std::string msg = openError(file("root"), model(3, 2, 2));
  EXPECT_CONTAINS(msg, file("root/a/bad.png") + ": not a PNG or JPEG image");

  // A PNG cut off in its header, and a JPEG cut off in its data.
  Bytes png = readFile(file("root/a/good.png"));
  writeFile(file("root/a/bad.png"), Bytes(png.begin(), png.begin() + 20));
  msg = openError(file("root"), model(3, 2, 2));
  EXPECT_CONTAINS(msg, file("root/a/bad.png") + ": not a valid PNG image");
  fs::remove(file("root/a/bad.png"));

  // Noise, so that most of the file is the scan, after the header.
  writeJpeg(file("root/a/cut.jpg"), 64, 64, randomBytes(64 * 64 * 3, 2));
  Bytes jpeg = readFile(file("root/a/cut.jpg"));
  writeFile(file("root/a/cut.jpg"), Bytes(jpeg.begin(), jpeg.end() - 200));
  // The header is intact, so open succeeds; the decode is what fails.
  std::unique_ptr<Dataset> ds = openDataset(file("root"), model(3, 2, 2));
  std::vector<float> out(12);
  try {
    ds->read(0, Region::whole(ds->shape()), out.data());
    ADD_FAILURE() << "a truncated JPEG decoded";
  } catch (const DataError &e) {
    EXPECT_CONTAINS(e.what(), file("root/a/cut.jpg") +
                                  ": not a valid JPEG image: Premature end");
  }
  writeFile(file("root/a/cut.jpg"), Bytes(jpeg.begin(), jpeg.begin() + 30));
  EXPECT_CONTAINS(openError(file("root"), model(3, 2, 2)),
                  file("root/a/cut.jpg") + ": not a valid JPEG image");
}

} // namespace
