//===- MpiGradientSyncTest.cpp - gradient sums beside the backward pass ---===//
//
// Run as `mpirun -np N hdrt-mpi-gradient-sync-test`. With the sums on the
// worker thread and then on the calling one, each rank starts, in
// one program order, the sums of gradients of many sizes (bucketed ones
// and ones that go alone, over a byte of the bucket limit) on the world and
// on two replica groups split from it, as a backward pass would, and does
// other MPI work on the main thread while they run; then waits for them in
// a different order, as the updates do. The gradients are separate
// allocations, then one allocation per group in the order they start (as
// the runtime lays them out), where buckets are summed in place. Every
// element must equal the sum
// over the group's ranks of the values each rank put there (exact: they
// are small integers), three steps in a row. Exits non-zero and aborts the
// job on any mismatch.
//
//===----------------------------------------------------------------------===//

#include "hdrt/mpi/GradientSync.h"

#include <mpi.h>

#include <cstdio>
#include <vector>

using hdrt::mpi::GradientSync;

namespace {

/// What rank `r` puts at element i of gradient g in step s.
float contribution(int s, int g, int r, int64_t i) {
  return float((s * 7 + g * 3 + r * 5 + i) % 11);
}

} // namespace

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  // Replica groups as a strategy makes them: even and odd ranks, and the
  // first half and the rest.
  MPI_Comm parity, half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity);
  MPI_Comm_split(MPI_COMM_WORLD, rank < (ranks + 1) / 2, rank, &half);
  MPI_Comm comms[] = {MPI_COMM_WORLD, parity, half};

  const int64_t bucket = GradientSync::kBucketBytes / int64_t(sizeof(float));
  const std::vector<int64_t> sizes = {1,  7,          1000,       bucket / 3,
                                      64, bucket / 2, bucket,     5,
                                      3,  bucket + 1, bucket / 5, 1};
  int failures = 0, checked = 0;
  // On the worker thread, and on this one; separate gradients, and each
  // group's in one allocation.
  for (bool threaded : {true, false})
  for (bool oneAllocation : {false, true}) {
    GradientSync sync(threaded);
    for (int step = 0; step < 3; ++step) {
      std::vector<std::vector<float>> storage(sizes.size());
      std::vector<float *> grads(sizes.size());
      if (oneAllocation) {
        for (size_t g = 0; g < sizes.size(); ++g)
          storage[g % 3].resize(storage[g % 3].size() + size_t(sizes[g]));
        std::vector<float *> next = {storage[0].data(), storage[1].data(),
                                     storage[2].data()};
        for (size_t g = 0; g < sizes.size(); ++g) {
          grads[g] = next[g % 3];
          next[g % 3] += sizes[g];
        }
      } else {
        for (size_t g = 0; g < sizes.size(); ++g) {
          storage[g].resize(size_t(sizes[g]));
          grads[g] = storage[g].data();
        }
      }
      for (size_t g = 0; g < sizes.size(); ++g) {
        for (int64_t i = 0; i < sizes[g]; ++i)
          grads[g][i] = contribution(step, int(g), rank, i);
        MPI_Comm comm = comms[g % 3];
        if (int rc = sync.start(comm, grads[g], sizes[g])) {
          std::fprintf(stderr, "start failed: %d\n", rc);
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
        // The main thread's own collectives go on meanwhile (batch norm's
        // statistics, the loss).
        double one = 1, all = 0;
        MPI_Allreduce(&one, &all, 1, MPI_DOUBLE, MPI_SUM, comm);
      }
      // The updates wait in another order than the sums started.
      for (size_t k = 0; k < sizes.size(); ++k) {
        size_t g = (k * 5) % sizes.size();
        MPI_Comm comm = comms[g % 3];
        if (int rc = sync.wait(grads[g])) {
          std::fprintf(stderr, "wait failed: %d\n", rc);
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
        int members = 0;
        MPI_Comm_size(comm, &members);
        std::vector<int> group(static_cast<size_t>(members)),
            world(static_cast<size_t>(members));
        MPI_Group commGroup, worldGroup;
        MPI_Comm_group(comm, &commGroup);
        MPI_Comm_group(MPI_COMM_WORLD, &worldGroup);
        for (int m = 0; m < members; ++m)
          group[m] = m;
        MPI_Group_translate_ranks(commGroup, members, group.data(),
                                  worldGroup, world.data());
        MPI_Group_free(&commGroup);
        MPI_Group_free(&worldGroup);
        bool ok = true;
        for (int64_t i = 0; i < sizes[g] && ok; ++i) {
          float want = 0;
          for (int r : world)
            want += contribution(step, int(g), r, i);
          ok = grads[g][i] == want;
        }
        ++checked;
        if (!ok) {
          ++failures;
          std::fprintf(stderr, "rank %d step %d gradient %zu: wrong sum\n",
                       rank, step, g);
        }
      }
    }
    if (sync.takeBusySeconds() <= 0 && ranks > 1)
      ++failures, std::fprintf(stderr, "no time was spent summing\n");
  }
  int all = 0;
  MPI_Reduce(&failures, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("gradient sync on %d ranks: %d checked, %d failed\n", ranks,
                checked, all);
  MPI_Comm_free(&parity);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return all ? 1 : 0;
}
