//===- MpiExchangeTest.cpp - transfer plans executed under mpirun ---------===//
//
// Run as `mpirun -np N hdrt-mpi-exchange-test`. Plans come from the
// compiler's own plan computation (hd::transferPlan); every rank checks
// that its input box holds exactly the global tensor's values, and that
// backward adds to each element of its tile the number of consumer tasks
// that read it; each plan alone, and all plans' messages in flight at once
// (hdrt::mpi::Messages). Exits non-zero (and aborts the job) on any mismatch.
//
//===----------------------------------------------------------------------===//

#include "hd/CostModel/Transfer.h"
#include "hd/Tiling/Window.h"
#include "hdrt/mpi/Exchange.h"

#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
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

/// One scenario's plan and buffers on this rank.
struct Case {
  hd::ConsumerTiles tiles;
  std::vector<int64_t> shape;
  float offset = 0; // added to every value: tells cases apart
  std::vector<hdrt::mpi::Move> plan;
  hdrt::Box tileBox, inBox;
  bool hasTile = false, hasInput = false;
  std::vector<float> tile, in, dTile, dIn;

  hdrt::mpi::Side side() const {
    return {hasTile ? &tileBox : nullptr, hasInput ? &inBox : nullptr};
  }
};

/// What backward adds to must be kept: a tile's gradient starts here.
constexpr float kGradientBefore = 10.0f;

Case prepare(const Scenario &s, int rank, float offset = 0) {
  Case c;
  c.offset = offset;
  hd::ProducerGrid grid = hd::producerGrid(s.producerShape, s.producer);
  c.tiles = hd::consumerTiles(s.consumer, 0, s.config);
  c.shape = s.producerShape;
  for (const hd::BoxMove &m : hd::transferPlan(grid, c.tiles))
    c.plan.push_back({int(m.src), int(m.dst), toBox(m.box)});
  c.hasTile = rank < s.producer.tasks();
  c.hasInput = rank < static_cast<int64_t>(c.tiles.boxes.size());
  if (c.hasTile)
    c.tileBox = toBox(
        hd::tileOfTask(s.producerShape, s.producer.degrees, rank));
  if (c.hasInput)
    c.inBox = toBox(c.tiles.boxes[rank]);
  c.tile.resize(c.hasTile ? c.tileBox.volume() : 0);
  forEach(c.tileBox, [&](const int64_t *idx, int64_t off) {
    c.tile[off] = valueAt(c.shape, idx) + c.offset;
  });
  c.in.assign(c.hasInput ? c.inBox.volume() : 0, -1.0f);
  // Backward: every consumer task sends ones.
  c.dIn.assign(c.in.size(), 1.0f);
  c.dTile.assign(c.tile.size(), kGradientBefore);
  return c;
}

/// Wrong values of the input box after forward.
int64_t wrongInputs(const Case &c) {
  int64_t wrong = 0;
  forEach(c.inBox, [&](const int64_t *idx, int64_t off) {
    wrong += c.in[off] != valueAt(c.shape, idx) + c.offset;
  });
  return wrong;
}

/// Wrong values of the tile's gradient after backward: each element
/// collects how many input boxes hold it, on top of the gradient it already
/// had (backward adds, it must not overwrite).
int64_t wrongGradients(const Case &c) {
  int64_t wrong = 0;
  forEach(c.tileBox, [&](const int64_t *idx, int64_t off) {
    int64_t readers = 0;
    for (const hd::TileBox &b : c.tiles.boxes)
      readers += contains(toBox(b), idx);
    wrong += c.dTile[off] != kGradientBefore + static_cast<float>(readers);
  });
  return wrong;
}

/// Runs one scenario on this rank, each direction whole; returns the
/// number of wrong values.
int64_t run(const Scenario &s, int rank) {
  Case c = prepare(s, rank);
  if (hdrt::mpi::exchangeForward(MPI_COMM_WORLD, c.plan, c.side(),
                                 c.tile.data(), c.in.data()) != MPI_SUCCESS)
    return 1;
  if (hdrt::mpi::exchangeBackward(MPI_COMM_WORLD, c.plan, c.side(),
                                  c.dTile.data(),
                                  c.dIn.data()) != MPI_SUCCESS)
    return 1;
  return wrongInputs(c) + wrongGradients(c);
}

/// Runs scenarios at once through Messages, as a step posts them: all
/// receives first, then the sends in the opposite order, then the waits in
/// an order that differs from rank to rank, so that messages of several
/// plans are in flight between the same ranks at the same time. Each case
/// has values of its own. With one tag for all, messages land in the wrong
/// plan's slots.
int64_t runPosted(const std::vector<const Scenario *> &all, int rank,
                  int size, bool distinctTags) {
  std::deque<Case> cases; // the messages keep references to their plans
  std::vector<std::unique_ptr<hdrt::mpi::Messages>> messages;
  for (const Scenario *s : all)
    if (s->producer.tasks() <= size && s->config.tasks() <= size)
      cases.push_back(prepare(*s, rank, 1000.0f * float(cases.size())));
  for (size_t i = 0; i < cases.size(); ++i)
    messages.push_back(std::make_unique<hdrt::mpi::Messages>(
        MPI_COMM_WORLD, cases[i].plan, distinctTags ? int(2 * i) : 0));
  size_t n = cases.size();
  int rc = MPI_SUCCESS;
  auto check = [&](int result) { rc = rc ? rc : result; };
  for (auto &m : messages)
    check(m->postReceives(/*forward=*/true));
  for (size_t i = n; i-- > 0;)
    check(messages[i]->postSends(cases[i].side(), /*forward=*/true,
                                 cases[i].tile.data()));
  for (size_t k = 0; k < n; ++k) {
    size_t i = (k + size_t(rank)) % n;
    check(messages[i]->finishForward(cases[i].side(), cases[i].tile.data(),
                                     cases[i].in.data()));
  }
  for (auto &m : messages) {
    check(m->finishSends());
    check(m->postReceives(/*forward=*/false));
  }
  for (size_t i = n; i-- > 0;)
    check(messages[i]->postSends(cases[i].side(), /*forward=*/false,
                                 cases[i].dIn.data()));
  for (size_t k = 0; k < n; ++k) {
    size_t i = (k + size_t(rank)) % n;
    check(messages[i]->finishBackward(cases[i].side(), cases[i].dTile.data(),
                                      cases[i].dIn.data()));
  }
  for (auto &m : messages)
    check(m->finishSends());
  if (rc != MPI_SUCCESS)
    return 1;
  int64_t wrong = 0;
  for (const Case &c : cases)
    wrong += wrongInputs(c) + wrongGradients(c);
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

  // Every plan's messages in flight at once, as a step posts them, a halo
  // twice among them; and, to show that this can fail, the two halos with
  // one tag for both (messages of one size: MPI matches them without an
  // error, into the wrong plan's slots).
  std::vector<const Scenario *> every, halos = {&all[0], &all[0]};
  for (const Scenario &s : all)
    every.push_back(&s);
  every.push_back(&all[0]);
  for (bool distinct : {true, false}) {
    if (!distinct && size < 2)
      continue; // no messages to mix up
    int64_t wrong = runPosted(distinct ? every : halos, rank, size, distinct);
    int64_t total = 0;
    MPI_Allreduce(&wrong, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    bool ok = distinct ? total == 0 : total > 0;
    if (rank == 0 && !ok)
      std::fprintf(stderr, "FAIL posted messages, %s tags: %lld wrong\n",
                   distinct ? "distinct" : "shared", (long long)total);
    (ok ? passed : failed) += 1;
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
