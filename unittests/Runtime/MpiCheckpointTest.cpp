//===- MpiCheckpointTest.cpp - checkpoints under mpirun -------------------===//
//
// Run as `mpirun -np N hdrt-mpi-checkpoint-test DIR`. Writes a checkpoint
// from one sharding, reads it back under another, and checks every failure:
// another model, a corrupt, truncated or missing file, an unwritable
// directory, and a leftover temporary file of an interrupted write.
//
//===----------------------------------------------------------------------===//

#include "hdrt/mpi/Checkpoint.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <vector>

using hdrt::Box;
using hdrt::mpi::Shard;

namespace {

int rank, size;
int passed = 0, failed = 0;

void check(bool ok, const std::string &what) {
  int mine = ok ? 0 : 1, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && any)
    std::fprintf(stderr, "FAIL %s\n", what.c_str());
  (any ? failed : passed) += 1;
}

/// The part of dim `dim` this rank holds when split over `parts` ranks.
Box sliceOf(const std::vector<int64_t> &shape, int dim, int parts) {
  Box b;
  b.rank = static_cast<int>(shape.size());
  for (int d = 0; d < b.rank; ++d)
    b.hi[d] = shape[d];
  int64_t base = shape[dim] / parts, extra = shape[dim] % parts;
  b.lo[dim] = rank * base + std::min<int64_t>(rank, extra);
  b.hi[dim] = b.lo[dim] + base + (rank < extra ? 1 : 0);
  return b;
}

/// Global position's value: its linear index, offset per tensor.
float valueAt(const Box &whole, const int64_t *idx, float offset) {
  int64_t v = 0;
  for (int d = 0; d < whole.rank; ++d)
    v = v * whole.hi[d] + idx[d];
  return offset + static_cast<float>(v);
}

/// Fills (or, with `verify`, checks) a shard's buffer from its global values.
bool visit(Shard &s, std::vector<float> &buf, float offset, bool verify) {
  Box whole;
  whole.rank = static_cast<int>(s.shape.size());
  for (int d = 0; d < whole.rank; ++d)
    whole.hi[d] = s.shape[d];
  if (!verify)
    buf.assign(s.box.volume(), 0.0f);
  s.data = buf.data();
  int64_t idx[4] = {0, 0, 0, 0};
  for (int d = 0; d < s.box.rank; ++d)
    idx[d] = s.box.lo[d];
  bool ok = true;
  for (int64_t i = 0; i < s.box.volume(); ++i) {
    float want = valueAt(whole, idx, offset);
    if (verify)
      ok &= buf[i] == want;
    else
      buf[i] = want;
    for (int d = s.box.rank - 1; d >= 0; --d) {
      if (++idx[d] < s.box.hi[d])
        break;
      idx[d] = s.box.lo[d];
    }
  }
  return ok;
}

std::vector<int64_t> convShape = {6, 3, 3, 3}, fcShape = {5, 4};

/// The tensors of a small model: a conv weight split along `convDim` over
/// the ranks, and a fully-connected weight replicated on every rank; with
/// `fill`, holding their values, else -1 until a read.
std::vector<Shard> shards(int convDim, std::vector<std::vector<float>> &bufs,
                          bool fill) {
  int parts = std::min<int64_t>(size, convShape[convDim]);
  std::vector<Shard> s(2);
  s[0] = {"conv.weight", convShape, {}, nullptr, false};
  if (rank < parts) {
    s[0].box = sliceOf(convShape, convDim, parts);
    s[0].writes = true;
  }
  Box whole;
  whole.rank = 2;
  whole.hi[0] = fcShape[0];
  whole.hi[1] = fcShape[1];
  s[1] = {"fc.weight", fcShape, whole, nullptr, rank == 0};
  bufs.resize(2);
  for (int i = 0; i < 2; ++i) {
    if (s[i].box.rank == 0)
      continue;
    visit(s[i], bufs[i], 1000.0f * i, false);
    if (!fill) // A buffer to read into: garbage until the read.
      std::fill(bufs[i].begin(), bufs[i].end(), -1.0f);
  }
  return s;
}

std::string readError(const std::string &dir, const std::string &hash) {
  std::vector<std::vector<float>> bufs;
  std::vector<Shard> s = shards(1, bufs, false);
  int64_t step = 0;
  std::string error;
  if (hdrt::mpi::readCheckpoint(MPI_COMM_WORLD, dir, hash, step, s, error))
    return "";
  return error;
}

void copyFile(const std::string &from, const std::string &to, long keep,
              long flip) {
  std::ifstream in(from, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  if (keep >= 0)
    bytes.resize(keep);
  if (flip >= 0)
    bytes[bytes.size() - flip] ^= 0x40;
  std::ofstream(to, std::ios::binary) << bytes;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::string dir = argc > 1 ? argv[1] : ".";
  std::string error;

  // Write with the conv weight split along output channels.
  std::vector<std::vector<float>> bufs;
  std::vector<Shard> out = shards(0, bufs, true);
  check(hdrt::mpi::writeCheckpoint(MPI_COMM_WORLD, dir, "cafe01", 7, out,
                                   error),
        "write: " + error);

  // Read it back split along input channels: the global layout resumes
  // under another partition.
  std::vector<std::vector<float>> inBufs(2);
  std::vector<Shard> in = shards(1, inBufs, false);
  int64_t step = 0;
  bool read =
      hdrt::mpi::readCheckpoint(MPI_COMM_WORLD, dir, "cafe01", step, in, error);
  check(read && step == 7, "read: " + error);
  bool same = true;
  for (int i = 0; i < 2; ++i)
    if (in[i].box.rank > 0)
      same &= visit(in[i], inBufs[i], 1000.0f * i, true);
  check(same, "values after resharding");

  // Another model's checkpoint.
  check(readError(dir, "beef02").find("belongs to model cafe01") !=
            std::string::npos,
        "model hash mismatch");

  // A failed write leaves the previous checkpoint intact.
  bool wrote = hdrt::mpi::writeCheckpoint(
      MPI_COMM_WORLD, dir + "/no-such-dir", "cafe01", 8, out, error);
  check(!wrote && error.find("cannot write the checkpoint") !=
                      std::string::npos,
        "unwritable directory: " + error);
  check(readError(dir, "cafe01").empty(), "previous checkpoint intact");

  // An interrupted write leaves a temporary file; the checkpoint still
  // loads.
  if (rank == 0)
    std::ofstream(dir + "/checkpoint.hd.tmp") << "half a checkpoint";
  MPI_Barrier(MPI_COMM_WORLD);
  check(readError(dir, "cafe01").empty(), "leftover temporary file");

  // Corrupt, truncated and missing files.
  if (rank == 0) {
    mkdir((dir + "/corrupt").c_str(), 0755);
    mkdir((dir + "/truncated").c_str(), 0755);
    copyFile(dir + "/checkpoint.hd", dir + "/corrupt/checkpoint.hd", -1, 9);
    copyFile(dir + "/checkpoint.hd", dir + "/truncated/checkpoint.hd", 120,
             -1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  check(readError(dir + "/corrupt", "cafe01").find("is corrupt") !=
            std::string::npos,
        "corrupt data");
  check(readError(dir + "/truncated", "cafe01").find("is truncated") !=
            std::string::npos,
        "truncated file");
  check(readError(dir + "/missing", "cafe01").find("no checkpoint") !=
            std::string::npos,
        "missing file");

  // Shards that do not cover a tensor, and names the format cannot hold.
  std::vector<Shard> gap = out;
  gap[1].writes = false;
  check(!hdrt::mpi::writeCheckpoint(MPI_COMM_WORLD, dir, "cafe01", 9, gap,
                                    error) &&
            error.find("cover 0 of its 20 elements") != std::string::npos,
        "uncovered tensor: " + error);
  std::vector<Shard> spaced = out;
  spaced[1].name = "fc weight";
  check(!hdrt::mpi::writeCheckpoint(MPI_COMM_WORLD, dir, "cafe01", 9, spaced,
                                    error) &&
            error.find("without whitespace") != std::string::npos,
        "name with whitespace: " + error);
  check(readError(dir, "cafe01").empty(), "still the step-7 checkpoint");

  if (rank == 0)
    std::printf("checkpoint on %d ranks: %d passed, %d failed\n", size,
                passed, failed);
  MPI_Finalize();
  return failed ? 1 : 0;
}
