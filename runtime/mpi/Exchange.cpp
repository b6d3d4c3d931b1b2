//===- Exchange.cpp - transfers and all-reduce between MPI ranks ----------===//

#include "hdrt/mpi/Exchange.h"

#include <algorithm>
#include <climits>

namespace hdrt::mpi {

float *Staging::reserve(size_t count) {
  if (count > size) {
    data.reset(new float[count]);
    size = count;
  }
  return data.get();
}

Messages::Messages(MPI_Comm comm, const std::vector<Move> &plan, int tag,
                   Staging *staging)
    : comm_(comm), plan_(plan), tag_(tag) {
  MPI_Comm_rank(comm, &rank_);
  int64_t size = 0;
  atDst_.assign(plan.size(), -1);
  atSrc_.assign(plan.size(), -1);
  for (size_t i = 0; i < plan.size(); ++i) {
    // MPI counts are ints: a message above 2^31 elements is refused rather
    // than silently truncated, before anything is posted.
    if ((plan[i].dst == rank_ || plan[i].src == rank_) &&
        plan[i].box.volume() > INT_MAX)
      countable_ = false;
    if (plan[i].dst == rank_) {
      atDst_[i] = size;
      size += plan[i].box.volume();
    }
    if (plan[i].src == rank_) {
      atSrc_[i] = size;
      size += plan[i].box.volume();
    }
  }
  slots_ = (staging ? *staging : own_).reserve(size_t(size));
}

int Messages::postReceives(bool forward) {
  if (!countable_)
    return MPI_ERR_COUNT;
  if (!receives_.empty())
    return MPI_SUCCESS;
  receivesForward_ = forward;
  for (size_t i = 0; i < plan_.size(); ++i) {
    const Move &m = plan_[i];
    // Forward, a rank receives where it is the destination; backward, where
    // it is the source.
    int64_t slot = forward ? atDst_[i] : atSrc_[i];
    if (slot < 0)
      continue;
    receivedMoves_.push_back(i);
    receives_.emplace_back();
    // With MPI's default handler (errors are fatal) a failure here ends
    // the whole job; it never returns with requests in flight.
    MPI_Irecv(slots_ + slot, int(m.box.volume()), MPI_FLOAT,
              forward ? m.src : m.dst, tag(forward), comm_,
              &receives_.back());
  }
  return MPI_SUCCESS;
}

int Messages::postSends(Side side, bool forward, const float *data) {
  if (!countable_)
    return MPI_ERR_COUNT;
  if (int rc = finishSends()) // their slots are about to be rewritten
    return rc;
  const Box *from = forward ? side.tileBox : side.inBox;
  for (size_t i = 0; i < plan_.size(); ++i) {
    const Move &m = plan_[i];
    int64_t slot = forward ? atSrc_[i] : atDst_[i];
    if (slot < 0)
      continue;
    copyRegion(data, *from, slots_ + slot, m.box, m.box);
    sends_.emplace_back();
    MPI_Isend(slots_ + slot, int(m.box.volume()), MPI_FLOAT,
              forward ? m.dst : m.src, tag(forward), comm_, &sends_.back());
  }
  return MPI_SUCCESS;
}

template <typename Unpack>
int Messages::receive(bool forward, Unpack unpack) {
  if (receives_.empty()) {
    if (int rc = postReceives(forward))
      return rc;
  } else if (receivesForward_ != forward) {
    return MPI_ERR_REQUEST; // the other direction's receives are posted
  }
  int rc = MPI_Waitall(int(receives_.size()), receives_.data(),
                       MPI_STATUSES_IGNORE);
  receives_.clear();
  if (rc == MPI_SUCCESS)
    for (size_t i : receivedMoves_)
      unpack(slots_ + (forward ? atDst_[i] : atSrc_[i]), plan_[i].box);
  receivedMoves_.clear();
  return rc;
}

int Messages::finishForward(Side side, const float *tile, float *in) {
  if (side.tileBox && side.inBox)
    copyRegion(tile, *side.tileBox, in, *side.inBox,
               intersect(*side.tileBox, *side.inBox));
  return receive(/*forward=*/true, [&](const float *slot, const Box &box) {
    copyRegion(slot, box, in, *side.inBox, box);
  });
}

int Messages::finishBackward(Side side, float *dTile, const float *dIn) {
  if (side.tileBox && side.inBox)
    addRegion(dIn, *side.inBox, dTile, *side.tileBox,
              intersect(*side.tileBox, *side.inBox));
  return receive(/*forward=*/false, [&](const float *slot, const Box &box) {
    addRegion(slot, box, dTile, *side.tileBox, box);
  });
}

int Messages::finishSends() {
  if (sends_.empty())
    return MPI_SUCCESS;
  int rc = MPI_Waitall(int(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE);
  sends_.clear();
  return rc;
}

namespace {

/// Both phases of one direction at once, through a staging area kept
/// across calls.
template <typename Finish>
int exchange(MPI_Comm comm, const std::vector<Move> &plan, Side side,
             bool forward, const float *sent, Finish finish) {
  static thread_local Staging staging;
  Messages messages(comm, plan, /*tag=*/0, &staging);
  if (int rc = messages.postReceives(forward))
    return rc;
  if (int rc = messages.postSends(side, forward, sent))
    return rc;
  int rc = finish(messages);
  int sends = messages.finishSends();
  return rc ? rc : sends;
}

} // namespace

int exchangeForward(MPI_Comm comm, const std::vector<Move> &plan, Side side,
                    const float *tile, float *in) {
  return exchange(comm, plan, side, /*forward=*/true, tile,
                  [&](Messages &m) { return m.finishForward(side, tile, in); });
}

int exchangeBackward(MPI_Comm comm, const std::vector<Move> &plan, Side side,
                     float *dTile, const float *dIn) {
  return exchange(comm, plan, side, /*forward=*/false, dIn, [&](Messages &m) {
    return m.finishBackward(side, dTile, dIn);
  });
}

int allReduceSum(MPI_Comm comm, float *data, int64_t count) {
  // In chunks: MPI counts are ints.
  for (int64_t done = 0; done < count;) {
    int chunk = static_cast<int>(std::min<int64_t>(count - done, INT_MAX));
    if (int rc = MPI_Allreduce(MPI_IN_PLACE, data + done, chunk, MPI_FLOAT,
                               MPI_SUM, comm))
      return rc;
    done += chunk;
  }
  return MPI_SUCCESS;
}

} // namespace hdrt::mpi
