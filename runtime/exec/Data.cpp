//===- Data.cpp - images and labels from a raw file -----------------------===//

#include "Data.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace hdrt::exec {

namespace {

struct DataFile {
  int fd = -1;
  int64_t samples = 0;
  int64_t recordBytes = 0;
};

/// Opens the file once and checks that it holds whole samples of this
/// model's image shape.
const DataFile &open(const std::string &path, const Partition &images) {
  static std::map<std::string, DataFile> files;
  auto found = files.find(path);
  if (found != files.end())
    return found->second;
  DataFile f;
  f.recordBytes =
      4 + 4 * images.shape[1] * images.shape[2] * images.shape[3];
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0)
    throw Error("cannot open the data file '" + path +
                "': " + std::strerror(errno));
  struct stat st;
  if (fstat(f.fd, &st) != 0)
    throw Error("cannot read the data file '" + path +
                "': " + std::strerror(errno));
  if (st.st_size == 0 || st.st_size % f.recordBytes != 0)
    throw Error("the data file '" + path + "' has " +
                std::to_string(st.st_size) +
                " bytes, not a whole number of samples of " +
                std::to_string(f.recordBytes) + " bytes (an int32 label and " +
                std::to_string(images.shape[1]) + "x" +
                std::to_string(images.shape[2]) + "x" +
                std::to_string(images.shape[3]) + " float32 values)");
  f.samples = st.st_size / f.recordBytes;
  return files.emplace(path, f).first->second;
}

void readAt(const DataFile &f, const std::string &path, void *out,
            int64_t bytes, int64_t offset) {
  char *p = static_cast<char *>(out);
  while (bytes > 0) {
    ssize_t got = pread(f.fd, p, bytes, offset);
    if (got <= 0)
      throw Error("cannot read the data file '" + path +
                  "': " + (got < 0 ? std::strerror(errno) : "end of file"));
    p += got;
    bytes -= got;
    offset += got;
  }
}

int64_t recordOf(const DataFile &f, const Partition &images, int64_t step,
                 int64_t sample) {
  return (step * images.shape[0] + sample) % f.samples;
}

} // namespace

void readImages(const std::string &path, const Partition &images,
                int64_t step, const Box &box, float *out) {
  const DataFile &f = open(path, images);
  const int64_t c = images.shape[1], h = images.shape[2], w = images.shape[3];
  std::vector<float> sample(c * h * w);
  Box whole;
  whole.rank = 3;
  whole.hi[0] = c;
  whole.hi[1] = h;
  whole.hi[2] = w;
  Box part;
  part.rank = 3;
  for (int d = 0; d < 3; ++d) {
    part.lo[d] = box.lo[d + 1];
    part.hi[d] = box.hi[d + 1];
  }
  for (int64_t n = box.lo[0]; n < box.hi[0]; ++n) {
    int64_t record = recordOf(f, images, step, n);
    readAt(f, path, sample.data(), 4 * c * h * w,
           record * f.recordBytes + 4);
    copyRegion(sample.data(), whole, out, part, part);
    out += part.volume();
  }
}

void readLabels(const std::string &path, const Partition &images,
                int64_t step, const Box &box, int32_t *out) {
  const DataFile &f = open(path, images);
  for (int64_t n = box.lo[0]; n < box.hi[0]; ++n)
    readAt(f, path, out++, 4,
           recordOf(f, images, step, n) * f.recordBytes);
}

} // namespace hdrt::exec
