//===- GradientSync.h - gradient sums beside the backward -------*- C++ -*-===//
//
// A layer's gradients can be summed over its replicas as soon as its
// backward has run; the update waits for them only at the end. This runs
// the sums on a thread of their own, so that the backward of the layers
// before goes on meanwhile (MPI_THREAD_MULTIPLE), or, where that costs more
// than it hides (a rank with one core), on the calling thread.
//
// Gradients under kBucketBytes share buckets (hdrt/common/GradientBuckets.h),
// sent when full or when the first update waits: fewer, larger messages.
// A bucket's contents and the moment it is queued follow program order
// only, so the members of a communicator run the same collectives in the
// same order and the worker, running them in turn, cannot deadlock.
//
// With the worker, every communicator it is given is duplicated
// (collectively, at its first use), so the worker's collectives never
// interleave with the main thread's on the same communicator.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_MPI_GRADIENTSYNC_H
#define HDRT_MPI_GRADIENTSYNC_H

#include "hdrt/common/GradientBuckets.h"

#include <mpi.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace hdrt::mpi {

class GradientSync {
public:
  /// Gradients at least this large go alone; smaller ones share buckets of
  /// about this size.
  static constexpr int64_t kBucketBytes = int64_t(4) << 20;

  /// `threaded`: sums run on the worker thread where the MPI allows it;
  /// otherwise on the calling thread, a bucket when it is full or waited
  /// for, a large gradient at once.
  explicit GradientSync(bool threaded) : threaded_(threaded && available()) {}
  GradientSync(const GradientSync &) = delete;
  GradientSync &operator=(const GradientSync &) = delete;
  /// Finishes what was started, then stops the worker.
  ~GradientSync();

  /// Whether this MPI allows a second thread to call it.
  static bool available();

  /// Starts summing `count` floats at `data` over the ranks of `comm` (every
  /// member calls it, in the same order). The caller leaves them alone until
  /// wait(data) returns. Returns 0 or an MPI error code.
  int start(MPI_Comm comm, float *data, int64_t count);
  /// Waits until the sum of `data` is in place (null: every sum started);
  /// 0 or the first sum's MPI error.
  int wait(const float *data);
  /// Seconds the worker spent summing since the last call.
  double takeBusySeconds();
  /// The communicators this made (the worker's duplicates).
  int64_t communicators() const { return int64_t(dups_.size()); }

private:
  using Buckets = GradientBuckets<MPI_Comm>;
  /// One collective: a bucket, summed in place (one contiguous run) or
  /// through a packed buffer.
  struct Job {
    Buckets::Bucket bucket;
    bool done = false;
    int rc = 0;
  };

  MPI_Comm duplicate(MPI_Comm comm);
  /// Hands a job to the worker, or runs it now without one; 0 or the
  /// error of what ran.
  int queue(std::shared_ptr<Job> job);
  /// Queues closed buckets in order; 0 or the first error.
  int queueAll(std::vector<Buckets::Bucket> closed);
  void work();
  /// Runs a job's collective; `polled` (the worker) sleeps while waiting.
  int run(Job &job, bool polled);

  bool threaded_;
  std::map<MPI_Comm, MPI_Comm> dups_;
  Buckets buckets_{kBucketBytes};
  /// Every started gradient's job, until waited for.
  std::map<const float *, std::shared_ptr<Job>> jobOf_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::shared_ptr<Job>> queue_;
  bool stopping_ = false;
  double busy_ = 0;
  std::thread worker_;
  std::vector<float> packed_; // the worker's
};

} // namespace hdrt::mpi

#endif // HDRT_MPI_GRADIENTSYNC_H
