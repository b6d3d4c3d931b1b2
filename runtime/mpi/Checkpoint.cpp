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

int64_t volumeOf(const std::vector<int64_t> &shape) {
  int64_t v = 1;
  for (int64_t d : shape)
    v *= d;
  return v;
}

Box wholeBox(const std::vector<int64_t> &shape) {
  Box b;
  b.rank = static_cast<int>(shape.size());
  for (int d = 0; d < b.rank; ++d)
    b.hi[d] = shape[d];
  return b;
}

uint64_t fnv1a(const std::vector<std::vector<float>> &tensors) {
  uint64_t h = 14695981039346656037ull;
  for (const auto &t : tensors) {
    const unsigned char *p = reinterpret_cast<const unsigned char *>(t.data());
    for (size_t i = 0; i < t.size() * sizeof(float); ++i)
      h = (h ^ p[i]) * 1099511628211ull;
  }
  return h;
}

/// Rank 0 decided `ok` and `error`; every rank learns them.
bool agree(MPI_Comm comm, bool ok, std::string &error) {
  int flag = ok ? 1 : 0;
  MPI_Bcast(&flag, 1, MPI_INT, 0, comm);
  int64_t length = static_cast<int64_t>(error.size());
  MPI_Bcast(&length, 1, MPI_INT64_T, 0, comm);
  error.resize(length);
  if (length)
    MPI_Bcast(error.data(), int(length), MPI_CHAR, 0, comm);
  return flag == 1;
}

/// Broadcasts in int-sized chunks.
void bcastFloats(MPI_Comm comm, float *data, int64_t count) {
  for (int64_t done = 0; done < count;) {
    int chunk = static_cast<int>(std::min<int64_t>(count - done, INT_MAX));
    MPI_Bcast(data + done, chunk, MPI_FLOAT, 0, comm);
    done += chunk;
  }
}

/// Rank 0 collects every tensor from the ranks that write its shards.
std::vector<std::vector<float>> gather(MPI_Comm comm,
                                       const std::vector<Shard> &shards,
                                       std::vector<int64_t> &covered) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  std::vector<int64_t> mine(shards.size()), counts(shards.size());
  for (size_t i = 0; i < shards.size(); ++i)
    mine[i] = shards[i].writes ? 1 : 0;
  MPI_Reduce(mine.data(), counts.data(), int(shards.size()), MPI_INT64_T,
             MPI_SUM, 0, comm);
  std::vector<std::vector<float>> tensors;
  for (size_t i = 0; i < shards.size(); ++i) {
    const Shard &s = shards[i];
    int tag = static_cast<int>(2 * (i % 16000));
    if (rank != 0) {
      if (s.writes) {
        int64_t box[8];
        std::copy(s.box.lo, s.box.lo + 4, box);
        std::copy(s.box.hi, s.box.hi + 4, box + 4);
        MPI_Send(box, 8, MPI_INT64_T, 0, tag, comm);
        MPI_Send(s.data, int(s.box.volume()), MPI_FLOAT, 0, tag + 1, comm);
      }
      continue;
    }
    Box whole = wholeBox(s.shape);
    std::vector<float> global(whole.volume(), 0.0f);
    int64_t expected = counts[i];
    covered.push_back(0);
    if (s.writes) {
      copyRegion(s.data, s.box, global.data(), whole, s.box);
      covered.back() += s.box.volume();
      --expected;
    }
    for (; expected > 0; --expected) {
      int64_t box[8];
      MPI_Status status;
      MPI_Recv(box, 8, MPI_INT64_T, MPI_ANY_SOURCE, tag, comm, &status);
      Box part;
      part.rank = whole.rank;
      std::copy(box, box + 4, part.lo);
      std::copy(box + 4, box + 8, part.hi);
      std::vector<float> data(part.volume());
      MPI_Recv(data.data(), int(data.size()), MPI_FLOAT, status.MPI_SOURCE,
               tag + 1, comm, MPI_STATUS_IGNORE);
      copyRegion(data.data(), part, global.data(), whole, part);
      covered.back() += part.volume();
    }
    tensors.push_back(std::move(global));
  }
  return tensors;
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

/// Reads and validates the file against the shards; false with a reason.
bool readFile(const std::string &dir, const std::string &modelHash,
              const std::vector<Shard> &shards, int64_t &step,
              std::vector<std::vector<float>> &tensors, std::string &error) {
  std::string path = dir + "/checkpoint.hd";
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "no checkpoint '" + path + "': " + std::strerror(errno);
    return false;
  }
  auto bad = [&](const std::string &why) {
    error = "checkpoint '" + path + "' " + why;
    return false;
  };
  std::string line;
  if (!std::getline(in, line) || line + "\n" != kMagic)
    return bad("is not an hd checkpoint");
  std::string key, hash;
  uint64_t checksum = 0;
  size_t count = 0;
  if (!(in >> key >> hash) || key != "model")
    return bad("has a corrupt header");
  if (hash != modelHash)
    return bad("belongs to model " + hash + ", not to this model (" +
               modelHash + ")");
  if (!(in >> key >> step) || key != "step" ||
      !(in >> key >> checksum) || key != "checksum" ||
      !(in >> key >> count) || key != "tensors")
    return bad("has a corrupt header");
  if (count != shards.size())
    return bad("holds " + std::to_string(count) + " tensors, the program " +
               std::to_string(shards.size()));
  for (const Shard &s : shards) {
    std::string name;
    size_t rank = 0;
    if (!(in >> name >> rank) || name != s.name || rank != s.shape.size())
      return bad("does not match the program's tensor '" + s.name + "'");
    for (int64_t d : s.shape) {
      int64_t got;
      if (!(in >> got) || got != d)
        return bad("has another shape for tensor '" + s.name + "'");
    }
  }
  if (!(in >> key) || key != "data" || in.get() != '\n')
    return bad("has a corrupt header");
  for (const Shard &s : shards) {
    tensors.emplace_back(volumeOf(s.shape));
    in.read(reinterpret_cast<char *>(tensors.back().data()),
            std::streamsize(tensors.back().size() * sizeof(float)));
    if (!in)
      return bad("is truncated");
  }
  if (in.peek() != std::char_traits<char>::eof())
    return bad("has trailing bytes");
  if (fnv1a(tensors) != checksum)
    return bad("is corrupt: its checksum does not match its data");
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
  std::vector<int64_t> covered;
  std::vector<std::vector<float>> tensors = gather(comm, shards, covered);
  bool ok = true;
  if (rank == 0)
    for (size_t i = 0; i < shards.size() && ok; ++i)
      if (covered[i] != volumeOf(shards[i].shape)) {
        error = "the shards written for checkpoint tensor '" +
                shards[i].name + "' cover " + std::to_string(covered[i]) +
                " of its " + std::to_string(volumeOf(shards[i].shape)) +
                " elements";
        ok = false;
      }
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
  for (size_t i = 0; i < shards.size(); ++i) {
    Shard &s = shards[i];
    std::vector<float> global;
    float *data;
    if (rank == 0) {
      data = tensors[i].data();
    } else {
      global.resize(volumeOf(s.shape));
      data = global.data();
    }
    bcastFloats(comm, data, volumeOf(s.shape));
    if (s.box.rank > 0 && s.data)
      copyRegion(data, wholeBox(s.shape), s.data, s.box, s.box);
  }
  return true;
}

} // namespace hdrt::mpi
