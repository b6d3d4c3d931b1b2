//===- DataReadersFuzzer.cpp - fuzz the IDX, .npy and raw data readers ----===//
//
// The data readers take files from anywhere and trust none of their header
// values: a header that claims 2^32 images must end in a DataError, not in
// an allocation of that size, a read past the end or a hang. An input is
//   byte 0: bits 0-1 the format (0 IDX, 1 .npy, 2 or 3 raw), bit 2 the
//           model's channels (3, else 1); the model is C x 4 x 4;
//   IDX and .npy: bytes 1-2 (little-endian) the length L of a labels file,
//           the next L bytes that file, the rest the images file;
//   raw: the rest is the file.
// The files go to a fresh temporary directory (IDX under the standard names,
// so the labels are found beside the images); a data set that opens is read
// whole, every sample's label and every value, and what the readers promise
// is checked: labels are not negative, IDX values lie in [0, 1].
//
//===----------------------------------------------------------------------===//

#include "hdrt/data/Dataset.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

void writeFile(const std::string &path, const uint8_t *data, size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(data), size);
  if (!out) {
    std::fprintf(stderr, "cannot write '%s'\n", path.c_str());
    std::abort();
  }
}

/// Reads everything `ds` holds, aborting where a promise is broken. A
/// gunzipped input can hold millions of samples; the first 2^16 are read.
void readAll(const hdrt::data::Dataset &ds) {
  using namespace hdrt::data;
  bool idx = ds.describe().rfind("IDX", 0) == 0;
  Region whole = Region::whole(ds.shape());
  std::vector<float> out(whole.volume());
  for (int64_t i = 0; i < ds.size() && i < (1 << 16); ++i) {
    if (ds.label(i) < 0) {
      std::fprintf(stderr, "sample %lld has label %d\n", (long long)i,
                   ds.label(i));
      std::abort();
    }
    ds.read(i, whole, out.data());
    for (float v : out)
      if (idx && !(v >= 0.0f && v <= 1.0f)) {
        std::fprintf(stderr, "an IDX value %g outside [0, 1]\n", v);
        std::abort();
      }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  namespace fs = std::filesystem;
  using namespace hdrt::data;
  if (size < 1)
    return 0;
  int format = data[0] & 3;
  OpenOptions options;
  options.model = {data[0] & 4 ? 3 : 1, 4, 4};
  ++data, --size;

  char pattern[] = "/tmp/hd-data-fuzzer-XXXXXX";
  if (!mkdtemp(pattern)) {
    std::perror("mkdtemp");
    std::abort();
  }
  fs::path dir = pattern;
  std::string images;
  if (format <= 1 && size >= 2) {
    size_t labelsSize = std::min<size_t>(data[0] | data[1] << 8, size - 2);
    std::string labels =
        (dir / (format == 0 ? "f-labels-idx1-ubyte" : "labels.npy")).string();
    writeFile(labels, data + 2, labelsSize);
    if (format == 1)
      options.labels = labels;
    data += 2 + labelsSize;
    size -= 2 + labelsSize;
  }
  images = (dir / (format == 0   ? "f-images-idx3-ubyte"
                   : format == 1 ? "images.npy"
                                 : "data.bin"))
               .string();
  writeFile(images, data, size);

  try {
    std::unique_ptr<Dataset> ds = openDataset(images, options);
    readAll(*ds);
  } catch (const DataError &) {
    // What a bad file should give.
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return 0;
}
