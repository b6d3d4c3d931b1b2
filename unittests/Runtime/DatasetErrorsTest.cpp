//===- DatasetErrorsTest.cpp - every error openDataset promises -----------===//
//
// Each error is provoked with a file written for it, and its message checked
// for what makes it useful: the file it is about and the reason (with both
// shapes where they differ, what was tried where a file is missing).
//
//===----------------------------------------------------------------------===//

#include "DataFiles.h"

#include <gtest/gtest.h>

using namespace datafiles;

namespace {

class DatasetErrorsTest : public TempDirTest {};

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_F(DatasetErrorsTest, MissingFile) {
  std::string msg = openError(file("nothing.npy"), model(1, 2, 2));
  EXPECT_CONTAINS(msg, file("nothing.npy"));
  EXPECT_CONTAINS(msg, "No such file");
}

TEST_F(DatasetErrorsTest, TruncatedAndBadHeaders) {
  std::string path = file("t-images-idx3-ubyte");
  writeFile(file("t-labels-idx1-ubyte"), idxLabels({1, 2, 3}));
  writeFile(path, idxImages(3, 4, 4, randomBytes(3 * 16 - 1, 1)));
  std::string msg = openError(path, model(1, 4, 4));
  EXPECT_CONTAINS(msg, path + ": truncated");
  EXPECT_CONTAINS(msg, "3 images of 4x4 uint8 need 48 bytes");
  writeFile(path, idxImages(3, 4, 4, randomBytes(3 * 16 + 2, 1)));
  EXPECT_CONTAINS(openError(path, model(1, 4, 4)), "2 bytes after the last");
  // A header cut off, and one whose sizes overflow.
  writeFile(path, {0, 0, 8, 3, 0, 0, 0});
  EXPECT_CONTAINS(openError(path, model(1, 4, 4)), "truncated");
  writeFile(path, idxImages(0xffffffff, 0xffffffff, 0xffffffff, {}));
  EXPECT_CONTAINS(openError(path, model(1, 4, 4)), "more than 2^63");
  // Another IDX type, and a labels file given as images.
  Bytes floats = idxImages(3, 4, 4, randomBytes(3 * 64, 1));
  floats[2] = 0x0D;
  writeFile(path, floats);
  EXPECT_CONTAINS(openError(path, model(1, 4, 4)),
                  "IDX element type float32 is not supported");
  writeFile(path, idxLabels({1, 2}));
  EXPECT_CONTAINS(openError(path, model(1, 4, 4)), "an IDX labels file");

  std::string npyPath = file("images.npy");
  writeFile(file("labels.npy"), npy("|u1", {3}, {1, 2, 3}));
  writeFile(npyPath, npy("|u1", {3, 4, 4}, randomBytes(3 * 16 - 5, 2)));
  msg = openError(npyPath, model(1, 4, 4, file("labels.npy")));
  EXPECT_CONTAINS(msg, npyPath + ": truncated");
  EXPECT_CONTAINS(msg, "needs 48 bytes");
  // Cut inside the header.
  Bytes whole = npy("|u1", {3, 4, 4}, randomBytes(48, 2));
  writeFile(npyPath, Bytes(whole.begin(), whole.begin() + 40));
  EXPECT_CONTAINS(openError(npyPath, model(1, 4, 4, file("labels.npy"))),
                  npyPath + ": truncated");
  // Bad magic or header.
  Bytes badVersion = whole;
  badVersion[6] = 9;
  writeFile(npyPath, badVersion);
  EXPECT_CONTAINS(openError(npyPath, model(1, 4, 4, file("labels.npy"))),
                  "unsupported .npy format version 9.0");
  Bytes badDict = whole;
  badDict[10] = '[';
  writeFile(npyPath, badDict);
  EXPECT_CONTAINS(openError(npyPath, model(1, 4, 4, file("labels.npy"))),
                  npyPath + ": bad .npy header: expected '{'");
  writeFile(file("garbage-labels"), {'n', 'o', 'p', 'e', 0, 0, 0, 0});
  writeFile(npyPath, whole);
  msg = openError(npyPath, model(1, 4, 4, file("garbage-labels")));
  EXPECT_CONTAINS(msg, file("garbage-labels") + ": not a labels file");
  // Corrupt gzip data.
  writeGz(file("c.gz"), randomBytes(4096, 3));
  Bytes gz = readFile(file("c.gz"));
  writeFile(file("c.gz"), Bytes(gz.begin(), gz.end() - 100));
  EXPECT_CONTAINS(openError(file("c.gz"), model(1, 4, 4)),
                  file("c.gz") + ": truncated gzip data");
}

TEST_F(DatasetErrorsTest, ShapeAgainstModel) {
  std::string path = file("s-images-idx3-ubyte");
  writeFile(path, idxImages(2, 28, 28, randomBytes(2 * 784, 1)));
  writeFile(file("s-labels-idx1-ubyte"), idxLabels({1, 2}));
  std::string msg = openError(path, model(1, 14, 14));
  EXPECT_CONTAINS(msg, path + ": images of 1x28x28, the model takes 1x14x14");
  EXPECT_CONTAINS(openError(path, model(3, 28, 28)), "the model takes 3x28x28");

  writeFile(file("labels.npy"), npy("|u1", {2}, {1, 2}));
  writeFile(file("x.npy"), npy("<f4", {2, 3, 8, 8}, Bytes(2 * 3 * 64 * 4)));
  msg = openError(file("x.npy"), model(1, 8, 8, file("labels.npy")));
  EXPECT_CONTAINS(msg, file("x.npy") + ": an array of shape (2, 3, 8, 8)");
  EXPECT_CONTAINS(msg, "images of 1x8x8");

  // A raw file's size must be whole samples of the model's.
  writeFile(file("r.bin"), raw({1, 2}, randomFloats(2 * 12, 1)));
  msg = openError(file("r.bin"), model(1, 4, 4));
  EXPECT_CONTAINS(msg, file("r.bin") + ": not a whole number of samples: 104");
  EXPECT_CONTAINS(msg, "68 bytes (an int32 label and 1x4x4 float32 values)");
}

TEST_F(DatasetErrorsTest, LabelErrors) {
  std::string path = file("l-images-idx3-ubyte.gz");
  writeGz(path, idxImages(3, 2, 2, randomBytes(12, 1)));
  // None beside the images: the message says what was tried.
  std::string msg = openError(path, model(1, 2, 2));
  EXPECT_CONTAINS(msg, path + ": no labels file beside the images: tried '" +
                           file("l-labels-idx1-ubyte.gz") + "' and '" +
                           file("l-labels-idx1-ubyte") + "'");
  writeFile(file("plain.idx"), idxImages(3, 2, 2, randomBytes(12, 1)));
  EXPECT_CONTAINS(openError(file("plain.idx"), model(1, 2, 2)),
                  "no labels file was given");
  // Another count.
  writeGz(file("l-labels-idx1-ubyte.gz"), idxLabels({1, 2, 3, 4}));
  msg = openError(path, model(1, 2, 2));
  EXPECT_CONTAINS(msg,
                  file("l-labels-idx1-ubyte.gz") + ": 4 labels for 3 images");
  writeFile(file("labels.npy"), npy("<i4", {2}, Bytes(8)));
  EXPECT_CONTAINS(openError(path, model(1, 2, 2, file("labels.npy"))),
                  "2 labels for 3 images");
  // A given labels file that is not there.
  msg = openError(path, model(1, 2, 2, file("gone.npy")));
  EXPECT_CONTAINS(msg, file("gone.npy") + ": cannot open it");
  // Negative labels, in .npy and raw.
  writeFile(file("labels.npy"),
            npy("<i8", {3}, bytesOf(std::vector<int64_t>{0, -3, 1})));
  msg = openError(path, model(1, 2, 2, file("labels.npy")));
  EXPECT_CONTAINS(msg,
                  file("labels.npy") + ": label -3 of sample 1 is negative");
  writeFile(file("labels.npy"),
            npy("<u4", {3}, bytesOf(std::vector<uint32_t>{0, 1, 1u << 31})));
  EXPECT_CONTAINS(openError(path, model(1, 2, 2, file("labels.npy"))),
                  "does not fit in int32");
  writeFile(file("r.bin"), raw({1, 2, -7}, randomFloats(3 * 4, 1)));
  EXPECT_CONTAINS(openError(file("r.bin"), model(1, 2, 2)),
                  file("r.bin") + ": label -7 of sample 2 is negative");
  // Labels of a type that is not an integer, or of another rank.
  writeFile(file("labels.npy"), npy("<f4", {3}, Bytes(12)));
  EXPECT_CONTAINS(openError(path, model(1, 2, 2, file("labels.npy"))),
                  "labels of dtype '<f4' are not supported");
  writeFile(file("labels.npy"), npy("|u1", {3, 1}, Bytes(3)));
  EXPECT_CONTAINS(openError(path, model(1, 2, 2, file("labels.npy"))),
                  "1-D array");
  // .npy images need one; raw files must not have one.
  writeFile(file("x.npy"), npy("|u1", {3, 2, 2}, Bytes(12)));
  EXPECT_CONTAINS(openError(file("x.npy"), model(1, 2, 2)),
                  file("x.npy") +
                      ": a .npy file of images needs a labels file");
  writeFile(file("r.bin"), raw({1}, randomFloats(4, 1)));
  EXPECT_CONTAINS(openError(file("r.bin"), model(1, 2, 2, file("labels.npy"))),
                  "a raw data file carries its labels");
}

TEST_F(DatasetErrorsTest, NpyTypesAndOrder) {
  writeFile(file("labels.npy"), npy("|u1", {2}, {1, 2}));
  writeFile(file("f.npy"), npy("|u1", {2, 2, 2}, Bytes(8), true));
  EXPECT_CONTAINS(openError(file("f.npy"), model(1, 2, 2, file("labels.npy"))),
                  file("f.npy") + ": fortran_order True is not supported");
  writeFile(file("d.npy"), npy("<f8", {2, 2, 2}, Bytes(64)));
  EXPECT_CONTAINS(openError(file("d.npy"), model(1, 2, 2, file("labels.npy"))),
                  file("d.npy") + ": images of dtype '<f8' are not supported");
  writeFile(file("b.npy"), npy(">f4", {2, 2, 2}, Bytes(32)));
  EXPECT_CONTAINS(openError(file("b.npy"), model(1, 2, 2, file("labels.npy"))),
                  "dtype '>f4' are not supported");
}

TEST_F(DatasetErrorsTest, NoImages) {
  writeFile(file("e-images-idx3-ubyte"), idxImages(0, 2, 2, {}));
  writeFile(file("e-labels-idx1-ubyte"), idxLabels({}));
  EXPECT_CONTAINS(openError(file("e-images-idx3-ubyte"), model(1, 2, 2)),
                  file("e-images-idx3-ubyte") + ": no images");
  writeFile(file("labels.npy"), npy("|u1", {0}, {}));
  writeFile(file("e.npy"), npy("|u1", {0, 2, 2}, {}));
  EXPECT_CONTAINS(openError(file("e.npy"), model(1, 2, 2, file("labels.npy"))),
                  file("e.npy") + ": no images");
  writeFile(file("e.bin"), {});
  EXPECT_CONTAINS(openError(file("e.bin"), model(1, 2, 2)),
                  file("e.bin") + ": no images");
  fs::create_directories(dir / "empty");
  EXPECT_CONTAINS(openError(file("empty"), model(3, 2, 2)),
                  file("empty") + ": no images");
  fs::create_directories(dir / "empty/class");
  writeFile(file("empty/class/readme.txt"), {'x'});
  EXPECT_CONTAINS(openError(file("empty"), model(3, 2, 2)),
                  file("empty/class") + ": no images in class 'class'");
}

TEST_F(DatasetErrorsTest, OutOfRange) {
  writeFile(file("r.bin"), raw({1}, randomFloats(4, 1)));
  std::unique_ptr<Dataset> ds = openDataset(file("r.bin"), model(1, 2, 2));
  float out[8];
  EXPECT_THROW(ds->label(1), std::out_of_range);
  EXPECT_THROW(ds->read(-1, Region::whole(ds->shape()), out),
               std::out_of_range);
  EXPECT_THROW(ds->read(0, {0, 1, 0, 3, 0, 2}, out), std::out_of_range);
  EXPECT_THROW(ds->read(0, {0, 1, 1, 0, 0, 2}, out), std::out_of_range);
}
} // namespace
