//===- GradientSync.cpp - gradient all-reduce beside the backward pass -----===//

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
  if (count * int64_t(sizeof(float)) >= kBucketBytes) {
    auto job = std::make_shared<Job>();
    job->comm = mine;
    job->segments = {{data, count}};
    job->count = count;
    jobOf_[data] = job;
    return queue(std::move(job));
  }
  int rc = MPI_SUCCESS;
  std::shared_ptr<Job> &bucket = open_[mine];
  if (bucket &&
      (bucket->count + count) * int64_t(sizeof(float)) > kBucketBytes) {
    rc = queue(std::move(bucket));
    openOrder_.erase(std::find(openOrder_.begin(), openOrder_.end(), mine));
  }
  if (!bucket) {
    bucket = std::make_shared<Job>();
    bucket->comm = mine;
    openOrder_.push_back(mine);
  }
  bucket->segments.push_back({data, count});
  bucket->count += count;
  jobOf_[data] = bucket;
  return rc;
}

int GradientSync::flushBuckets() {
  int rc = MPI_SUCCESS;
  for (MPI_Comm comm : openOrder_)
    if (int failed = queue(std::move(open_[comm])))
      rc = rc ? rc : failed;
  open_.clear();
  openOrder_.clear();
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
  auto it = jobOf_.find(data);
  if (it == jobOf_.end())
    return MPI_SUCCESS; // summed at start, or never started
  // Updates begin once every gradient has started: what is still open can
  // go now, on every rank at the same point of the program.
  if (int rc = flushBuckets())
    return rc;
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
        if (int rc = MPI_Allreduce(MPI_IN_PLACE, data + done, chunk,
                                   MPI_FLOAT, MPI_SUM, job.comm))
          return rc;
      } else {
        MPI_Request request;
        if (int rc = MPI_Iallreduce(MPI_IN_PLACE, data + done, chunk,
                                    MPI_FLOAT, MPI_SUM, job.comm, &request))
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
  bool contiguous = true;
  for (size_t i = 1; i < job.segments.size() && contiguous; ++i)
    contiguous = job.segments[i].first ==
                 job.segments[i - 1].first + job.segments[i - 1].second;
  if (contiguous)
    return sum(job.segments[0].first, job.count);
  packed_.resize(size_t(job.count));
  float *at = packed_.data();
  for (auto [data, count] : job.segments)
    at = std::copy(data, data + count, at);
  if (int rc = sum(packed_.data(), job.count))
    return rc;
  at = packed_.data();
  for (auto [data, count] : job.segments) {
    std::copy(at, at + count, data);
    at += count;
  }
  return MPI_SUCCESS;
}

} // namespace hdrt::mpi
