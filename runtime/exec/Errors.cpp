//===- Errors.cpp - failures every rank agrees on -------------------------===//

#include "Errors.h"

#include <mpi.h>

#include <climits>

namespace hdrt::exec {

void agree(bool ok, const std::string &message) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int mine = ok ? INT_MAX : rank, first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == INT_MAX)
    return;
  std::string text = message;
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, first, MPI_COMM_WORLD);
  text.resize(size_t(length));
  if (length)
    MPI_Bcast(text.data(), length, MPI_CHAR, first, MPI_COMM_WORLD);
  throw CollectiveError(text);
}

} // namespace hdrt::exec
