//===- Exchange.cpp - transfers and all-reduce between MPI ranks ----------===//

#include "hdrt/mpi/Exchange.h"

#include <algorithm>
#include <climits>
#include <memory>

namespace hdrt::mpi {

namespace {

/// MPI counts are ints: a single message above 2^31 elements is refused
/// rather than silently truncated.
bool countable(const Box &b) { return b.volume() <= INT_MAX; }

/// Posts every message of one direction of a plan and waits: `outgoing`
/// moves are packed from `from` and sent, `incoming` received and handed to
/// `unpack`.
template <typename Pack, typename Unpack>
int exchange(MPI_Comm comm, const std::vector<Move> &plan, bool forward,
             Pack pack, Unpack unpack) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  // Validate before posting anything: returning with requests in flight
  // would free buffers MPI still writes.
  for (const Move &m : plan)
    if (!countable(m.box))
      return MPI_ERR_COUNT;
  // Every message's buffer is a slice of one staging area, kept across
  // calls: fresh buffers cost a page fault per 4 KiB and a zeroing pass,
  // as much as the copies themselves on activations of a few MB.
  static thread_local std::unique_ptr<float[]> staging;
  static thread_local size_t stagingSize = 0;
  size_t needed = 0;
  for (const Move &m : plan)
    if (m.src == rank || m.dst == rank)
      needed += size_t(m.box.volume());
  if (needed > stagingSize) {
    staging.reset(new float[needed]);
    stagingSize = needed;
  }
  float *next = staging.get();
  std::vector<std::pair<size_t, float *>> received;
  std::vector<MPI_Request> requests;
  for (size_t i = 0; i < plan.size(); ++i) {
    const Move &m = plan[i];
    int sender = forward ? m.src : m.dst, receiver = forward ? m.dst : m.src;
    int tag = static_cast<int>(i % 32768); // MPI guarantees tags < 32768
    if (receiver == rank) {
      received.push_back({i, next});
      requests.emplace_back();
      // With MPI's default handler (errors are fatal) a failure here ends
      // the whole job; it never returns with requests in flight.
      MPI_Irecv(next, int(m.box.volume()), MPI_FLOAT, sender, tag, comm,
                &requests.back());
      next += m.box.volume();
    }
    if (sender == rank) {
      pack(m, next);
      requests.emplace_back();
      MPI_Isend(next, int(m.box.volume()), MPI_FLOAT, receiver, tag, comm,
                &requests.back());
      next += m.box.volume();
    }
  }
  if (int rc = MPI_Waitall(int(requests.size()), requests.data(),
                           MPI_STATUSES_IGNORE))
    return rc;
  for (auto [move, buf] : received)
    unpack(plan[move], buf);
  return MPI_SUCCESS;
}

} // namespace

int exchangeForward(MPI_Comm comm, const std::vector<Move> &plan, Side side,
                    const float *tile, float *in) {
  if (side.tileBox && side.inBox)
    copyRegion(tile, *side.tileBox, in, *side.inBox,
               intersect(*side.tileBox, *side.inBox));
  return exchange(
      comm, plan, /*forward=*/true,
      [&](const Move &m, float *buf) {
        copyRegion(tile, *side.tileBox, buf, m.box, m.box);
      },
      [&](const Move &m, const float *buf) {
        copyRegion(buf, m.box, in, *side.inBox, m.box);
      });
}

int exchangeBackward(MPI_Comm comm, const std::vector<Move> &plan, Side side,
                     float *dTile, const float *dIn) {
  if (side.tileBox && side.inBox)
    addRegion(dIn, *side.inBox, dTile, *side.tileBox,
              intersect(*side.tileBox, *side.inBox));
  return exchange(
      comm, plan, /*forward=*/false,
      [&](const Move &m, float *buf) {
        copyRegion(dIn, *side.inBox, buf, m.box, m.box);
      },
      [&](const Move &m, const float *buf) {
        addRegion(buf, m.box, dTile, *side.tileBox, m.box);
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
