//===- Threads.cpp - kernel threads per process ---------------------------===//

#include "Program.h"

#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace hdrt::exec {

void pickThreads() {
  if (std::getenv("OMP_NUM_THREADS"))
    return;
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                      &local);
  int localRanks = 1;
  MPI_Comm_size(local, &localRanks);
  MPI_Comm_free(&local);
  int cores = static_cast<int>(std::thread::hardware_concurrency());
  // mpirun (and a singleton MPI process) may bind a rank to one core: more
  // threads than its cores spin against each other in time slices.
  cpu_set_t mine;
  int bound = sched_getaffinity(0, sizeof(mine), &mine) == 0
                  ? CPU_COUNT(&mine)
                  : cores;
  omp_set_num_threads(
      std::max(1, std::min(bound, cores / std::max(1, localRanks))));
}

} // namespace hdrt::exec
