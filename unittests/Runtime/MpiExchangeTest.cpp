//===- MpiExchangeTest.cpp - transfer plans executed under mpirun ---------===//
//
// Run as `mpirun -np N hdrt-mpi-exchange-test`. Plans come from the
// compiler's own plan computation (hd::transferPlan); every rank checks
// that its input box holds exactly the global tensor's values, and that
// backward adds to each element of its tile the number of consumer tasks
// that read it. Exits non-zero (and aborts the job) on any mismatch.
//
//===----------------------------------------------------------------------===//

#include "hd/CostModel/Transfer.h"
#include "hd/Tiling/Window.h"
#include "hdrt/mpi/Exchange.h"

#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

hdrt::Box toBox(const hd::TileBox &t) {
  hdrt::Box b;
  b.rank = static_cast<int>(t.rank());
  for (int d = 0; d < b.rank; ++d) {
    b.lo[d] = t[d].lo;
    b.hi[d] = t[d].hi;
  }
  return b;
}

/// The value every tensor holds at a global position: its linear index.
float valueAt(const std::vector<int64_t> &shape, const int64_t *idx) {
  int64_t v = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    v = v * shape[d] + idx[d];
  return static_cast<float>(v);
}

/// Calls f(index, offset) for each element of a box, in buffer order.
void forEach(const hdrt::Box &b,
             const std::function<void(const int64_t *, int64_t)> &f) {
  if (b.rank == 0 || b.volume() == 0)
    return; // No box: the rank has no task of this layer.
  int64_t idx[4];
  for (int d = 0; d < b.rank; ++d)
    idx[d] = b.lo[d];
  for (int64_t off = 0; off < b.volume(); ++off) {
    f(idx, off);
    for (int d = b.rank - 1; d >= 0; --d) {
      if (++idx[d] < b.hi[d])
        break;
      idx[d] = b.lo[d];
    }
  }
}

bool contains(const hdrt::Box &b, const int64_t *idx) {
  for (int d = 0; d < b.rank; ++d)
    if (idx[d] < b.lo[d] || idx[d] >= b.hi[d])
      return false;
  return true;
}

struct Scenario {
  std::string name;
  std::vector<int64_t> producerShape;
  hd::ParallelConfig producer;
  hd::Layer consumer;
  hd::ParallelConfig config;
};

hd::Layer ownTile(std::vector<int64_t> shape) {
  hd::Layer l;
  l.shape = shape;
  l.inputs = {{0, shape}};
  l.inputBox = [](unsigned, const hd::TileBox &t) { return t; };
  return l;
}

hd::Layer conv3x3(std::vector<int64_t> in, int64_t outChannels) {
  hd::Layer l;
  hd::Window w{3, 1, 1, 1, 1, false};
  l.shape = {in[0], outChannels, in[2], in[3]};
  l.inputs = {{0, in}};
  l.inputBox = [=](unsigned, const hd::TileBox &t) {
    return hd::TileBox({t[0], {0, in[1]}, w.inputRange(t[2], in[2]),
                        w.inputRange(t[3], in[3])});
  };
  return l;
}

hd::Layer linear(std::vector<int64_t> in, int64_t out) {
  hd::Layer l;
  l.shape = {in[0], out};
  l.inputs = {{0, in}};
  l.inputBox = [=](unsigned, const hd::TileBox &t) {
    return hd::TileBox({t[0], {0, in[1]}});
  };
  return l;
}

hd::Layer concatSecond(std::vector<int64_t> in, int64_t offset,
                       int64_t total) {
  hd::Layer l;
  l.shape = {in[0], total, in[2], in[3]};
  l.inputs = {{0, in}, {0, in}};
  l.inputBox = [=](unsigned, const hd::TileBox &t) {
    hd::TileBox b = t;
    hd::Range mine = hd::intersect(t[1], {offset, offset + in[1]});
    b[1] = {mine.lo - offset, mine.hi - offset};
    return b;
  };
  return l;
}

/// Runs one scenario on this rank; returns the number of wrong values.
int64_t run(const Scenario &s, int rank) {
  hd::ProducerGrid grid = hd::producerGrid(s.producerShape, s.producer);
  hd::ConsumerTiles tiles = hd::consumerTiles(s.consumer, 0, s.config);
  std::vector<hdrt::mpi::Move> plan;
  for (const hd::BoxMove &m : hd::transferPlan(grid, tiles))
    plan.push_back({int(m.src), int(m.dst), toBox(m.box)});

  bool hasTile = rank < s.producer.tasks();
  bool hasInput = rank < static_cast<int64_t>(tiles.boxes.size());
  hdrt::Box tileBox, inBox;
  if (hasTile)
    tileBox = toBox(
        hd::tileOfTask(s.producerShape, s.producer.degrees, rank));
  if (hasInput)
    inBox = toBox(tiles.boxes[rank]);
  hdrt::mpi::Side side{hasTile ? &tileBox : nullptr,
                       hasInput ? &inBox : nullptr};

  std::vector<float> tile(hasTile ? tileBox.volume() : 0);
  forEach(tileBox, [&](const int64_t *idx, int64_t off) {
    tile[off] = valueAt(s.producerShape, idx);
  });
  std::vector<float> in(hasInput ? inBox.volume() : 0, -1.0f);
  if (hdrt::mpi::exchangeForward(MPI_COMM_WORLD, plan, side, tile.data(),
                                 in.data()) != MPI_SUCCESS)
    return 1;
  int64_t wrong = 0;
  forEach(inBox, [&](const int64_t *idx, int64_t off) {
    wrong += in[off] != valueAt(s.producerShape, idx);
  });

  // Backward: every consumer task sends ones; each tile element collects
  // how many input boxes hold it, on top of the gradient it already had
  // (backward adds, it must not overwrite).
  constexpr float before = 10.0f;
  std::vector<float> dIn(in.size(), 1.0f), dTile(tile.size(), before);
  if (hdrt::mpi::exchangeBackward(MPI_COMM_WORLD, plan, side, dTile.data(),
                                  dIn.data()) != MPI_SUCCESS)
    return 1;
  forEach(tileBox, [&](const int64_t *idx, int64_t off) {
    int64_t readers = 0;
    for (const hd::TileBox &b : tiles.boxes)
      readers += contains(toBox(b), idx);
    wrong += dTile[off] != before + static_cast<float>(readers);
  });
  return wrong;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  std::vector<int64_t> image = {4, 6, 9, 7}, features = {6, 10};
  std::vector<Scenario> all = {
      {"halo h", image, {{1, 1, size, 1}}, conv3x3(image, 5),
       {{1, 1, size, 1}}},
      {"halo h/w", image, {{1, 1, 2, 2}}, conv3x3(image, 5), {{1, 1, 2, 2}}},
      {"n to c", image, {{size, 1, 1, 1}}, conv3x3(image, 8),
       {{1, size, 1, 1}}},
      {"n to h", image, {{size, 1, 1, 1}}, ownTile(image),
       {{1, 1, size, 1}}},
      {"fewer devices", features, {{size, 1}}, linear(features, 4),
       {{1, 2}}},
      {"concat slice", image, {{1, size, 1, 1}}, concatSecond(image, 3, 9),
       {{2, 1, 1, 1}}},
  };
  int passed = 0, failed = 0;
  for (const Scenario &s : all) {
    if (s.producer.tasks() > size || s.config.tasks() > size)
      continue;
    int64_t wrong = run(s, rank), total = 0;
    MPI_Allreduce(&wrong, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total)
      std::fprintf(stderr, "FAIL %s: %lld wrong values\n", s.name.c_str(),
                   (long long)total);
    (total ? failed : passed) += 1;
  }

  // Replica groups: ranks of equal parity sum their (rank + 1) ones.
  MPI_Comm group;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &group);
  std::vector<float> grad(1000, float(rank + 1));
  hdrt::mpi::allReduceSum(group, grad.data(), grad.size());
  float want = 0;
  for (int r = rank % 2; r < size; r += 2)
    want += r + 1;
  int64_t wrong = 0, total = 0;
  for (float g : grad)
    wrong += g != want;
  MPI_Allreduce(&wrong, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  (total ? failed : passed) += 1;
  MPI_Comm_free(&group);

  if (rank == 0)
    std::printf("exchange on %d ranks: %d passed, %d failed\n", size, passed,
                failed);
  MPI_Finalize();
  return failed ? 1 : 0;
}
