//===- DatasetTest.cpp - IDX, .npy and raw files against direct loops -----===//
//
// Each test writes its files (DataFiles.h) into a temporary directory, opens
// them through openDataset, and checks what read() and label() give against
// the values it wrote, indexed by their definitions: byte / 255 for uint8,
// floats as stored, NCHW and NHWC offsets. Every region shape a rank may ask
// for: the whole image, strict sub-regions, a corner. And four threads
// reading at once give what one does.
//
//===----------------------------------------------------------------------===//

#include "DataFiles.h"

#include <gtest/gtest.h>

#include <thread>

using namespace datafiles;

namespace {

class DatasetTest : public TempDirTest {};

//===----------------------------------------------------------------------===//
// IDX
//===----------------------------------------------------------------------===//

constexpr int64_t N = 5, H = 6, W = 7;

TEST_F(DatasetTest, IdxPlainAndGzipWithLabelsBeside) {
  Bytes pixels = randomBytes(N * H * W, 1);
  Bytes labels = {3, 0, 9, 1, 7};
  writeFile(file("train-images-idx3-ubyte"), idxImages(N, H, W, pixels));
  writeFile(file("train-labels-idx1-ubyte"), idxLabels(labels));
  writeGz(file("t10k-images-idx3-ubyte.gz"), idxImages(N, H, W, pixels));
  writeGz(file("t10k-labels-idx1-ubyte.gz"), idxLabels(labels));

  for (const char *name :
       {"train-images-idx3-ubyte", "t10k-images-idx3-ubyte.gz"}) {
    SCOPED_TRACE(name);
    std::unique_ptr<Dataset> ds = openDataset(file(name), model(1, H, W));
    EXPECT_EQ(ds->size(), N);
    EXPECT_EQ(ds->shape(), (ImageShape{1, H, W}));
    EXPECT_EQ(ds->describe(),
              "IDX '" + file(name) + "': 5 images of 6x7 uint8");
    for (int64_t i = 0; i < N; ++i) {
      EXPECT_EQ(ds->label(i), labels[i]);
      auto byte = [&](int64_t, int64_t y, int64_t x) {
        return pixels[(i * H + y) * W + x] / 255.0f;
      };
      expectRegion(*ds, i, Region::whole(ds->shape()), byte);
      expectRegion(*ds, i, {0, 1, 2, 5, 1, 4}, byte);
      expectRegion(*ds, i, {0, 1, 5, 6, 6, 7}, byte);
    }
  }
}

TEST_F(DatasetTest, IdxLabelsBesideTryTheOtherCompression) {
  // Images gzipped, labels not: found after the .gz name is tried.
  writeGz(file("x-images-idx3-ubyte.gz"), idxImages(1, 2, 2, {1, 2, 3, 4}));
  writeFile(file("x-labels-idx1-ubyte"), idxLabels({4}));
  EXPECT_EQ(
      openDataset(file("x-images-idx3-ubyte.gz"), model(1, 2, 2))->label(0), 4);
  // And the other way round, with the MNIST mirrors' dotted names.
  writeFile(file("y-images.idx3-ubyte"), idxImages(1, 2, 2, {1, 2, 3, 4}));
  writeGz(file("y-labels.idx1-ubyte.gz"), idxLabels({6}));
  EXPECT_EQ(openDataset(file("y-images.idx3-ubyte"), model(1, 2, 2))->label(0),
            6);
}

TEST_F(DatasetTest, IdxExplicitLabels) {
  Bytes pixels = randomBytes(N * H * W, 2);
  writeFile(file("digits.idx"), idxImages(N, H, W, pixels));
  fs::create_directory(dir / "elsewhere");
  writeFile(file("elsewhere/l.idx"), idxLabels({1, 1, 2, 3, 5}));
  std::unique_ptr<Dataset> ds =
      openDataset(file("digits.idx"), model(1, H, W, file("elsewhere/l.idx")));
  EXPECT_EQ(ds->label(4), 5);
  // A .npy labels file serves IDX images too.
  writeFile(file("l.npy"),
            npy("<i8", {N}, bytesOf(std::vector<int64_t>{8, 6, 4, 2, 0})));
  ds = openDataset(file("digits.idx"), model(1, H, W, file("l.npy")));
  EXPECT_EQ(ds->label(0), 8);
  EXPECT_EQ(ds->label(4), 0);
  expectRegion(*ds, 3, {0, 1, 0, H, 0, W}, [&](int64_t, int64_t y, int64_t x) {
    return pixels[(3 * H + y) * W + x] / 255.0f;
  });
}

TEST_F(DatasetTest, FashionMnistFromDebian) {
  std::string images =
      "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz";
  if (!fs::exists(images))
    GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  std::unique_ptr<Dataset> ds = openDataset(images, model(1, 28, 28));
  EXPECT_EQ(ds->size(), 10000);
  EXPECT_EQ(ds->describe(),
            "IDX '" + images + "': 10000 images of 28x28 uint8");
  std::vector<int64_t> perClass(10);
  for (int64_t i = 0; i < ds->size(); ++i) {
    ASSERT_GE(ds->label(i), 0);
    ASSERT_LT(ds->label(i), 10);
    ++perClass[ds->label(i)];
  }
  for (int64_t count : perClass)
    EXPECT_EQ(count, 1000);
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

constexpr int64_t C = 3;

TEST_F(DatasetTest, NpyUint8AndFloat32NCHW) {
  Bytes u8 = randomBytes(N * C * H * W, 3);
  std::vector<float> f32 = randomFloats(N * C * H * W, 4);
  writeFile(file("u8.npy"), npy("|u1", {N, C, H, W}, u8));
  writeFile(file("f32.npy"), npy("<f4", {N, C, H, W}, bytesOf(f32), false, 2));
  writeFile(
      file("labels.npy"),
      npy("<i8", {N}, bytesOf(std::vector<int64_t>{0, 1, 2, 3, 2000000000})));
  writeFile(file("labels-u1.npy"), npy("|u1", {N}, {9, 8, 7, 6, 255}));

  auto nchw = [&](int64_t i, int64_t c, int64_t y, int64_t x) {
    return ((i * C + c) * H + y) * W + x;
  };
  std::unique_ptr<Dataset> ds =
      openDataset(file("u8.npy"), model(C, H, W, file("labels.npy")));
  EXPECT_EQ(ds->describe(),
            "NumPy '" + file("u8.npy") + "': 5 images of 3x6x7 uint8 (NCHW)");
  EXPECT_EQ(ds->label(4), 2000000000);
  for (int64_t i = 0; i < N; ++i)
    for (Region r : {Region::whole(ds->shape()), Region{1, 3, 2, 4, 3, 7}})
      expectRegion(*ds, i, r, [&](int64_t c, int64_t y, int64_t x) {
        return u8[nchw(i, c, y, x)] / 255.0f;
      });

  ds = openDataset(file("f32.npy"), model(C, H, W, file("labels-u1.npy")));
  EXPECT_EQ(ds->label(0), 9);
  EXPECT_EQ(ds->label(4), 255);
  for (int64_t i = 0; i < N; ++i)
    for (Region r : {Region::whole(ds->shape()), Region{0, 1, 0, 1, 0, 7}})
      expectRegion(*ds, i, r, [&](int64_t c, int64_t y, int64_t x) {
        return f32[nchw(i, c, y, x)];
      });
}

TEST_F(DatasetTest, NpyNHWC) {
  Bytes u8 = randomBytes(N * H * W * C, 5);
  std::vector<float> f32 = randomFloats(N * H * W * C, 6);
  writeFile(file("u8.npy"), npy("|u1", {N, H, W, C}, u8, false, 3));
  writeFile(file("f32.npy"), npy("<f4", {N, H, W, C}, bytesOf(f32)));
  writeFile(file("labels.npy"), npy("|u1", {N}, {1, 2, 3, 4, 5}));
  auto nhwc = [&](int64_t i, int64_t c, int64_t y, int64_t x) {
    return ((i * H + y) * W + x) * C + c;
  };
  std::unique_ptr<Dataset> u =
      openDataset(file("u8.npy"), model(C, H, W, file("labels.npy")));
  std::unique_ptr<Dataset> f =
      openDataset(file("f32.npy"), model(C, H, W, file("labels.npy")));
  EXPECT_CONTAINS(u->describe(), "(NHWC)");
  for (int64_t i = 0; i < N; ++i)
    for (Region r : {Region::whole(u->shape()), Region{1, 3, 1, 5, 2, 6},
                     Region{2, 3, 5, 6, 0, 1}}) {
      expectRegion(*u, i, r, [&](int64_t c, int64_t y, int64_t x) {
        return u8[nhwc(i, c, y, x)] / 255.0f;
      });
      expectRegion(*f, i, r, [&](int64_t c, int64_t y, int64_t x) {
        return f32[nhwc(i, c, y, x)];
      });
    }
}

TEST_F(DatasetTest, NpyNHWAndAmbiguousShapes) {
  Bytes u8 = randomBytes(N * H * W, 7);
  writeFile(file("nhw.npy"), npy("|u1", {N, H, W}, u8));
  writeFile(file("labels.npy"),
            npy("<i8", {N}, bytesOf(std::vector<int64_t>(N, 0))));
  std::unique_ptr<Dataset> ds =
      openDataset(file("nhw.npy"), model(1, H, W, file("labels.npy")));
  for (int64_t i = 0; i < N; ++i)
    expectRegion(*ds, i, {0, 1, 1, 4, 2, 5},
                 [&](int64_t, int64_t y, int64_t x) {
                   return u8[(i * H + y) * W + x] / 255.0f;
                 });
  // (N, 3, 3, 3) fits both NCHW and NHWC: NCHW.
  Bytes cube = randomBytes(N * 27, 8);
  writeFile(file("cube.npy"), npy("|u1", {N, 3, 3, 3}, cube));
  ds = openDataset(file("cube.npy"), model(3, 3, 3, file("labels.npy")));
  EXPECT_CONTAINS(ds->describe(), "(NCHW)");
  expectRegion(*ds, 2, {0, 3, 0, 3, 0, 3},
               [&](int64_t c, int64_t y, int64_t x) {
                 return cube[((2 * 3 + c) * 3 + y) * 3 + x] / 255.0f;
               });
}

//===----------------------------------------------------------------------===//
// Raw
//===----------------------------------------------------------------------===//

TEST_F(DatasetTest, Raw) {
  std::vector<float> values = randomFloats(N * C * H * W, 9);
  std::vector<int32_t> labels = {4, 0, 3, 3, 1};
  writeFile(file("data.bin"), raw(labels, values));
  writeGz(file("data.bin.gz"), raw(labels, values));
  for (const char *name : {"data.bin", "data.bin.gz"}) {
    SCOPED_TRACE(name);
    std::unique_ptr<Dataset> ds = openDataset(file(name), model(C, H, W));
    EXPECT_EQ(ds->describe(),
              "raw '" + file(name) + "': 5 images of 3x6x7 float32");
    ASSERT_EQ(ds->size(), N);
    for (int64_t i = 0; i < N; ++i) {
      EXPECT_EQ(ds->label(i), labels[i]);
      for (Region r : {Region::whole(ds->shape()), Region{2, 3, 1, 2, 0, 7}})
        expectRegion(*ds, i, r, [&](int64_t c, int64_t y, int64_t x) {
          return values[((i * C + c) * H + y) * W + x];
        });
    }
  }
}

//===----------------------------------------------------------------------===//
// Threads
//===----------------------------------------------------------------------===//

TEST_F(DatasetTest, FourThreadsReadAsOne) {
  fs::create_directories(dir / "folder/a");
  fs::create_directories(dir / "folder/b");
  for (int i = 0; i < 6; ++i)
    writePng(file("folder/" + std::string(i % 2 ? "a" : "b") + "/" +
                  std::to_string(i) + ".png"),
             5 + i, 4 + i, PNG_FORMAT_RGB,
             randomBytes((5 + i) * (4 + i) * 3, 20 + i));
  writeGz(file("g-images-idx3-ubyte.gz"),
          idxImages(40, 8, 8, randomBytes(40 * 64, 30)));
  writeFile(file("g-labels-idx1-ubyte"), idxLabels(Bytes(40, 1)));
  writeFile(file("n.npy"),
            npy("<f4", {40, 8, 8, 3}, bytesOf(randomFloats(40 * 64 * 3, 31))));
  writeFile(file("labels.npy"), npy("|u1", {40}, Bytes(40, 2)));

  std::vector<std::unique_ptr<Dataset>> sets;
  sets.push_back(openDataset(file("folder"), model(3, 8, 8)));
  sets.push_back(openDataset(file("g-images-idx3-ubyte.gz"), model(1, 8, 8)));
  sets.push_back(
      openDataset(file("n.npy"), model(3, 8, 8, file("labels.npy"))));
  for (const std::unique_ptr<Dataset> &ds : sets) {
    SCOPED_TRACE(ds->describe());
    // The regions each sample is read in: the whole image and four tiles.
    ImageShape s = ds->shape();
    std::vector<Region> regions = {Region::whole(s),
                                   {0, s.c, 0, 4, 0, 4},
                                   {0, s.c, 0, 4, 4, 8},
                                   {0, s.c, 4, 8, 0, 4},
                                   {0, s.c, 4, 8, 4, 8}};
    auto readAll = [&](std::vector<float> &out, int thread, int threads) {
      for (int64_t i = 0; i < ds->size(); ++i)
        for (size_t r = 0; r < regions.size(); ++r) {
          int64_t k = i * int64_t(regions.size()) + r;
          if (k % threads != thread)
            continue;
          ds->read(i, regions[r], out.data() + k * s.volume());
        }
    };
    size_t total = ds->size() * regions.size() * s.volume();
    std::vector<float> one(total, 0), four(total, 0);
    readAll(one, 0, 1);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        // Every thread also reads sample 0 whole, at the same time.
        std::vector<float> scratch(s.volume());
        ds->read(0, Region::whole(s), scratch.data());
        readAll(four, t, 4);
      });
    for (std::thread &t : threads)
      t.join();
    EXPECT_EQ(one, four);
  }
}
} // namespace
