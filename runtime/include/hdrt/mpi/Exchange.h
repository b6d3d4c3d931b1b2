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
// A plan's messages can go in two phases (Messages): receives posted before
// their data exist, sends as soon as they do, and a wait only where the
// data are read. exchangeForward and exchangeBackward run both phases at
// once.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_MPI_EXCHANGE_H
#define HDRT_MPI_EXCHANGE_H

#include "hdrt/Box.h"

#include <mpi.h>

#include <memory>
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

/// Memory for messages, kept across uses: fresh buffers cost a page fault
/// per 4 KiB and a zeroing pass, as much as the copies themselves on
/// activations of a few MB.
struct Staging {
  std::unique_ptr<float[]> data;
  size_t size = 0;
  /// At least `count` floats; what they held is lost.
  float *reserve(size_t count);
};

/// This rank's messages of one plan, in either direction. Each message has
/// a slot of staging of its own, which both directions use: backward, a
/// rank receives the boxes it sent forward and sends those it received.
/// A direction's receives may be posted before its sends, on any rank; its
/// sends once their data exist; and a slot is reused only after its
/// messages are waited for. Every call returns an MPI error code.
class Messages {
public:
  /// `plan` must outlive this. `tag` (forward) and `tag + 1` (backward)
  /// tell this plan's messages from those of every other plan in flight on
  /// `comm` at the same time. The slots are in `staging` where given (which
  /// must then outlive this), else in memory of its own.
  Messages(MPI_Comm comm, const std::vector<Move> &plan, int tag,
           Staging *staging = nullptr);
  Messages(const Messages &) = delete;
  Messages &operator=(const Messages &) = delete;

  /// Posts the receives of one direction; nothing if they are posted.
  int postReceives(bool forward);
  /// Posts the sends of one direction, their boxes copied from `data`, the
  /// producer's tile forward, the consumer's input box backward.
  int postSends(Side side, bool forward, const float *data);
  /// Forward: waits for the receives (posting them if need be) and fills
  /// `in` from them and from this rank's own `tile`.
  int finishForward(Side side, const float *tile, float *in);
  /// Backward: waits for the receives (posting them if need be) and adds
  /// them and this rank's own part of `dIn` into `dTile`.
  int finishBackward(Side side, float *dTile, const float *dIn);
  /// Waits for the sends in flight.
  int finishSends();

private:
  /// Waits for one direction's receives (posting them if need be) and hands
  /// each message's slot and box to `unpack`.
  template <typename Unpack> int receive(bool forward, Unpack unpack);
  int tag(bool forward) const { return forward ? tag_ : tag_ + 1; }

  MPI_Comm comm_;
  const std::vector<Move> &plan_;
  int tag_;
  int rank_ = 0;
  /// Per move, its slot's offset where this rank is the move's destination
  /// (`atDst_`) and where it is its source (`atSrc_`), else -1.
  std::vector<int64_t> atDst_, atSrc_;
  Staging own_;
  float *slots_ = nullptr;
  std::vector<MPI_Request> receives_, sends_;
  std::vector<size_t> receivedMoves_; // the moves of receives_, in order
  bool receivesForward_ = false;
  bool countable_ = true; // no message of this rank above INT_MAX elements
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
