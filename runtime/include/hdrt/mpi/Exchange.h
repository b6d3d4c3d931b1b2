//===- Exchange.h - transfers and all-reduce between MPI ranks -*- C++ -*-===//
//
// One rank is one device. A transfer's static plan (from the compiler's
// hd.transfer) lists every box one task sends another; each rank executes
// its part: it sends the boxes it is the source of, receives those it is
// the destination of, and copies the part of its input box that its own
// tile already holds. Backward runs the plan in reverse and adds, so
// gradients are summed where input boxes overlap (halos, replicated
// inputs).
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_MPI_EXCHANGE_H
#define HDRT_MPI_EXCHANGE_H

#include "hdrt/Box.h"

#include <mpi.h>

#include <vector>

namespace hdrt::mpi {

struct Move {
  int src, dst;
  Box box;
};

/// This rank's tile of the producer (null when it has no producer task) and
/// its consumer task's input box (null when it has none).
struct Side {
  const Box *tileBox = nullptr;
  const Box *inBox = nullptr;
};

/// Fills `in` (a buffer of the input box) from this rank's `tile` and the
/// other ranks' moves. Returns an MPI error code (MPI_SUCCESS on success).
int exchangeForward(MPI_Comm comm, const std::vector<Move> &plan, Side side,
                    const float *tile, float *in);

/// Adds the gradient of the input box, `dIn`, into `dTile` (a buffer of this
/// rank's tile) and into the tiles of the ranks it came from.
int exchangeBackward(MPI_Comm comm, const std::vector<Move> &plan, Side side,
                     float *dTile, const float *dIn);

/// Sums `data` over the ranks of `comm` in place (a replica group's
/// gradient all-reduce).
int allReduceSum(MPI_Comm comm, float *data, int64_t count);

} // namespace hdrt::mpi

#endif // HDRT_MPI_EXCHANGE_H
