//===- Threads.cpp - kernel threads per process ---------------------------===//

#include "Program.h"

#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace hdrt::exec {

namespace {

/// This host's ranks and cores. Collective over MPI_COMM_WORLD the first
/// time.
struct HostShare {
  int localRanks = 1;
  int cores = 1;

  static const HostShare &get() {
    static const HostShare share = [] {
      HostShare s;
      MPI_Comm local;
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                          MPI_INFO_NULL, &local);
      MPI_Comm_size(local, &s.localRanks);
      MPI_Comm_free(&local);
      s.cores = std::max(1u, std::thread::hardware_concurrency());
      return s;
    }();
    return share;
  }
};

} // namespace

void pickThreads() {
  const HostShare &s = HostShare::get(); // every rank takes part
  if (std::getenv("OMP_NUM_THREADS"))
    return;
  // mpirun (and a singleton MPI process) may bind a rank to one core: more
  // threads than its cores spin against each other in time slices.
  cpu_set_t mine;
  int bound = sched_getaffinity(0, sizeof(mine), &mine) == 0
                  ? CPU_COUNT(&mine)
                  : s.cores;
  omp_set_num_threads(
      std::max(1, std::min(bound, s.cores / std::max(1, s.localRanks))));
}

} // namespace hdrt::exec
