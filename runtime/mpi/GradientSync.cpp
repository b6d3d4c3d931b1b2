//===- GradientSync.cpp - gradient sums beside the backward ---------------===//

#include "hdrt/mpi/GradientSync.h"

#include <algorithm>
#include <chrono>
#include <climits>

namespace hdrt::mpi {

namespace {
/// How long the worker sleeps between polls of a sum in flight.
constexpr std::chrono::microseconds kPoll(50);
} // namespace

bool GradientSync::available() {
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  return level == MPI_THREAD_MULTIPLE;
}

GradientSync::~GradientSync() {
  // What is queued, every member queued: finish it. A bucket still open
  // was never waited for; nothing reads it.
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (worker_.joinable())
    worker_.join();
  for (auto &[comm, dup] : dups_)
    MPI_Comm_free(&dup);
}

MPI_Comm GradientSync::duplicate(MPI_Comm comm) {
  auto [it, added] = dups_.try_emplace(comm, MPI_COMM_NULL);
  if (added)
    MPI_Comm_dup(comm, &it->second);
  return it->second;
}

int GradientSync::start(MPI_Comm comm, float *data, int64_t count) {
  // The worker's collectives get communicators of their own.
  MPI_Comm mine = threaded_ ? duplicate(comm) : comm;
  return queueAll(buckets_.add(mine, data, count));
}

int GradientSync::queueAll(std::vector<Buckets::Bucket> closed) {
  int rc = MPI_SUCCESS;
  for (Buckets::Bucket &b : closed) {
    auto job = std::make_shared<Job>();
    job->bucket = std::move(b);
    for (const Segment &s : job->bucket.segments)
      jobOf_[s.first] = job;
    if (int failed = queue(std::move(job)))
      rc = rc ? rc : failed;
  }
  return rc;
}

int GradientSync::queue(std::shared_ptr<Job> job) {
  if (!threaded_) {
    // On this thread, now.
    double begin = MPI_Wtime();
    job->rc = run(*job, /*polled=*/false);
    job->done = true;
    busy_ += MPI_Wtime() - begin;
    return job->rc;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(job));
  }
  if (!worker_.joinable())
    worker_ = std::thread([this] { work(); });
  changed_.notify_all();
  return MPI_SUCCESS;
}

int GradientSync::wait(const float *data) {
  // Updates begin once every gradient has started: what is still open can
  // go now, on every rank at the same point of the program.
  if (!buckets_.empty())
    if (int rc = queueAll(buckets_.flush()))
      return rc;
  if (!data) { // every sum started
    int rc = MPI_SUCCESS;
    while (!jobOf_.empty())
      if (int failed = wait(jobOf_.begin()->first))
        rc = rc ? rc : failed;
    return rc;
  }
  auto it = jobOf_.find(data);
  if (it == jobOf_.end())
    return MPI_SUCCESS; // summed and waited for, or never started
  std::shared_ptr<Job> job = std::move(it->second);
  jobOf_.erase(it);
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return job->done; });
  return job->rc;
}

double GradientSync::takeBusySeconds() {
  std::lock_guard<std::mutex> lock(mutex_);
  double busy = busy_;
  busy_ = 0;
  return busy;
}

void GradientSync::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty())
      return; // stopping, with nothing left
    std::shared_ptr<Job> job = queue_.front();
    queue_.pop_front();
    lock.unlock();
    double begin = MPI_Wtime();
    int rc = run(*job, /*polled=*/true);
    double seconds = MPI_Wtime() - begin;
    lock.lock();
    busy_ += seconds;
    job->rc = rc;
    job->done = true;
    changed_.notify_all();
  }
}

int GradientSync::run(Job &job, bool polled) {
  // Sums `count` floats in place, in chunks: MPI counts are ints. The
  // worker polls a non-blocking sum with short sleeps between: a blocking
  // one would spin on a core the kernels need while it waits for the other
  // ranks.
  auto sum = [&](float *data, int64_t count) {
    for (int64_t done = 0; done < count;) {
      int chunk = static_cast<int>(std::min<int64_t>(count - done, INT_MAX));
      if (!polled) {
        if (int rc = MPI_Allreduce(MPI_IN_PLACE, data + done, chunk, MPI_FLOAT,
                                   MPI_SUM, job.bucket.group))
          return rc;
      } else {
        MPI_Request request;
        if (int rc = MPI_Iallreduce(MPI_IN_PLACE, data + done, chunk, MPI_FLOAT,
                                    MPI_SUM, job.bucket.group, &request))
          return rc;
        for (int finished = 0;;) {
          if (int rc = MPI_Test(&request, &finished, MPI_STATUS_IGNORE))
            return rc;
          if (finished)
            break;
          std::this_thread::sleep_for(kPoll);
        }
      }
      done += chunk;
    }
    return int(MPI_SUCCESS);
  };
  // Gradients laid out in the order they are started (as the runtime
  // allocates them) form one contiguous run: summed in place.
  const std::vector<Segment> &segments = job.bucket.segments;
  std::vector<Segment> runs = contiguousRuns(segments);
  if (runs.size() == 1)
    return sum(runs[0].first, runs[0].second);
  packed_.resize(size_t(job.bucket.count));
  float *at = packed_.data();
  for (auto [data, count] : segments)
    at = std::copy(data, data + count, at);
  if (int rc = sum(packed_.data(), job.bucket.count))
    return rc;
  at = packed_.data();
  for (auto [data, count] : segments) {
    std::copy(at, at + count, data);
    at += count;
  }
  return MPI_SUCCESS;
}

} // namespace hdrt::mpi
