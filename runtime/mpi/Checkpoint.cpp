//===- Checkpoint.cpp - checkpoints in the global layout ------------------===//

#include "hdrt/mpi/Checkpoint.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace hdrt::mpi {

namespace {

constexpr const char *kMagic = "HDCKPT1\n";

uint64_t fnv1a(const std::vector<std::vector<float>> &tensors) {
  uint64_t h = 14695981039346656037ull;
  for (const auto &t : tensors) {
    const unsigned char *p = reinterpret_cast<const unsigned char *>(t.data());
    for (size_t i = 0; i < t.size() * sizeof(float); ++i)
      h = (h ^ p[i]) * 1099511628211ull;
  }
  return h;
}

/// The fault tests' hook: HDRT_TEST_CHECKPOINT_CRASH=N kills the writing
/// process once N bytes of the temporary file are on disk; N at or beyond
/// the file's size kills it after the fsync, just before the rename.
class CrashingWriter {
public:
  explicit CrashingWriter(std::FILE *f) : f_(f) {
    if (const char *n = std::getenv("HDRT_TEST_CHECKPOINT_CRASH"))
      crashAt_ = std::strtoll(n, nullptr, 10);
  }
  bool write(const void *data, size_t bytes) {
    if (crashAt_ >= 0 && written_ + int64_t(bytes) > crashAt_) {
      std::fwrite(data, 1, size_t(crashAt_ - written_), f_);
      written_ = crashAt_;
      crash();
    }
    written_ += int64_t(bytes);
    return std::fwrite(data, 1, bytes, f_) == bytes;
  }
  void beforeRename() {
    if (crashAt_ >= 0)
      crash();
  }

private:
  [[noreturn]] void crash() {
    std::fflush(f_);
    std::fprintf(stderr, "checkpoint writer killed after %lld bytes\n",
                 static_cast<long long>(written_));
    std::fflush(stderr);
    std::raise(SIGKILL);
    std::abort();
  }
  std::FILE *f_;
  int64_t crashAt_ = -1, written_ = 0;
};

/// Makes the rename itself durable: a crash right after it must not bring
/// the old directory entry back.
void syncDirectory(const std::string &dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

/// Writes the file through a temporary and a rename; false with a reason.
bool writeFile(const std::string &dir, const std::string &modelHash,
               int64_t step, const std::vector<Shard> &shards,
               const std::vector<std::vector<float>> &tensors,
               std::string &error) {
  std::string path = dir + "/checkpoint.hd", tmp = path + ".tmp";
  std::FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    error = "cannot write the checkpoint '" + tmp + "': " +
            std::strerror(errno);
    return false;
  }
  CrashingWriter out(f);
  std::ostringstream header;
  header << kMagic << "model " << modelHash << "\nstep " << step
         << "\nchecksum " << fnv1a(tensors) << "\ntensors " << shards.size()
         << "\n";
  for (const Shard &s : shards) {
    header << s.name << " " << s.shape.size();
    for (int64_t d : s.shape)
      header << " " << d;
    header << "\n";
  }
  header << "data\n";
  std::string text = header.str();
  errno = 0;
  bool ok = out.write(text.data(), text.size());
  for (const auto &t : tensors)
    ok = ok && out.write(t.data(), t.size() * sizeof(float));
  ok = ok && std::fflush(f) == 0 && fsync(fileno(f)) == 0;
  int savedErrno = errno;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) {
    std::remove(tmp.c_str());
    error = "writing the checkpoint '" + tmp + "' failed (" +
            std::strerror(savedErrno ? savedErrno : EIO) +
            "); the previous checkpoint is untouched";
    return false;
  }
  out.beforeRename();
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = "cannot replace the checkpoint '" + path + "': " +
            std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  syncDirectory(dir);
  return true;
}

} // namespace

bool loadCheckpointFile(const std::string &path, CheckpointFile &file,
                        std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "no checkpoint '" + path + "': " + std::strerror(errno);
    return false;
  }
  auto bad = [&](const std::string &why) {
    error = "checkpoint '" + path + "' " + why;
    return false;
  };
  std::string line, key;
  if (!std::getline(in, line) || line + "\n" != kMagic)
    return bad("is not an hd checkpoint");
  uint64_t checksum = 0;
  size_t count = 0;
  if (!(in >> key >> file.modelHash) || key != "model" ||
      !(in >> key >> file.step) || key != "step" ||
      !(in >> key >> checksum) || key != "checksum" ||
      !(in >> key >> count) || key != "tensors" || count > (1u << 20))
    return bad("has a corrupt header");
  for (size_t i = 0; i < count; ++i) {
    std::string name;
    size_t rank = 0;
    if (!(in >> name >> rank) || rank < 1 || rank > 4)
      return bad("has a corrupt header");
    std::vector<int64_t> shape(rank);
    for (int64_t &d : shape)
      if (!(in >> d) || d < 1 || d > (int64_t(1) << 40))
        return bad("has a corrupt header");
    file.names.push_back(name);
    file.shapes.push_back(shape);
  }
  if (!(in >> key) || key != "data" || in.get() != '\n')
    return bad("has a corrupt header");
  // Every tensor's data, checked against the file's size before reading.
  std::streampos start = in.tellg();
  in.seekg(0, std::ios::end);
  int64_t bytes = int64_t(in.tellg() - start), needed = 0;
  in.seekg(start);
  for (const auto &shape : file.shapes)
    needed += 4 * volumeOf(shape);
  if (bytes < needed)
    return bad("is truncated");
  if (bytes > needed)
    return bad("has trailing bytes");
  for (const auto &shape : file.shapes) {
    file.tensors.emplace_back(size_t(volumeOf(shape)));
    in.read(reinterpret_cast<char *>(file.tensors.back().data()),
            std::streamsize(file.tensors.back().size() * sizeof(float)));
    if (!in)
      return bad("is truncated");
  }
  if (fnv1a(file.tensors) != checksum)
    return bad("is corrupt: its checksum does not match its data");
  return true;
}

namespace {

/// Reads the file and checks it against the program's shards; false with a
/// reason.
bool readFile(const std::string &dir, const std::string &modelHash,
              const std::vector<Shard> &shards, int64_t &step,
              std::vector<std::vector<float>> &tensors, std::string &error) {
  std::string path = dir + "/checkpoint.hd";
  CheckpointFile file;
  if (!loadCheckpointFile(path, file, error))
    return false;
  auto bad = [&](const std::string &why) {
    error = "checkpoint '" + path + "' " + why;
    return false;
  };
  if (file.modelHash != modelHash)
    return bad("belongs to model " + file.modelHash +
               ", not to this model (" + modelHash + ")");
  if (file.names.size() != shards.size())
    return bad("holds " + std::to_string(file.names.size()) +
               " tensors, the program " + std::to_string(shards.size()));
  for (size_t i = 0; i < shards.size(); ++i) {
    if (file.names[i] != shards[i].name)
      return bad("does not match the program's tensor '" + shards[i].name +
                 "'");
    if (file.shapes[i] != shards[i].shape)
      return bad("has another shape for tensor '" + shards[i].name + "'");
  }
  step = file.step;
  tensors = std::move(file.tensors);
  return true;
}

} // namespace

/// What the file format and MPI can carry: names without whitespace,
/// tensors of rank 1 to 4, shards MPI can count.
static bool validShards(const std::vector<Shard> &shards, std::string &error) {
  for (const Shard &s : shards) {
    if (s.name.empty() ||
        s.name.find_first_of(" \t\n\r") != std::string::npos) {
      error = "checkpoint tensor name '" + s.name +
              "' must be non-empty without whitespace";
      return false;
    }
    if (s.shape.empty() || s.shape.size() > 4) {
      error = "checkpoint tensor '" + s.name + "' must have rank 1 to 4";
      return false;
    }
    if (s.box.volume() > INT_MAX) {
      error = "checkpoint tensor '" + s.name +
              "' has a shard above 2^31 elements";
      return false;
    }
  }
  return true;
}

bool writeCheckpoint(MPI_Comm comm, const std::string &dir,
                     const std::string &modelHash, int64_t step,
                     const std::vector<Shard> &shards, std::string &error) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  error.clear();
  int valid = validShards(shards, error) ? 1 : 0, allValid = 0;
  MPI_Allreduce(&valid, &allValid, 1, MPI_INT, MPI_MIN, comm);
  if (!allValid) {
    if (error.empty())
      error = "another rank's checkpoint shards are invalid";
    return false;
  }
  std::vector<std::vector<float>> tensors;
  bool ok = gatherTensors(comm, shards, tensors, error);
  if (ok && rank == 0)
    ok = writeFile(dir, modelHash, step, shards, tensors, error);
  return agree(comm, ok, error);
}

bool readCheckpoint(MPI_Comm comm, const std::string &dir,
                    const std::string &modelHash, int64_t &step,
                    std::vector<Shard> &shards, std::string &error) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  std::vector<std::vector<float>> tensors;
  error.clear();
  bool ok = validShards(shards, error);
  if (ok && rank == 0)
    ok = readFile(dir, modelHash, shards, step, tensors, error);
  if (!agree(comm, ok, error))
    return false;
  MPI_Bcast(&step, 1, MPI_INT64_T, 0, comm);
  scatterTensors(comm, tensors, shards);
  return true;
}

} // namespace hdrt::mpi
