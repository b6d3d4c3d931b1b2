//===- Watchdog.cpp - ends a rank that waits on its device forever --------===//

#include "hdrt/common/Watchdog.h"

namespace hdrt {

Watchdog::Watchdog(std::chrono::milliseconds limit,
                   std::chrono::milliseconds interval, Poll poll, Fail fail)
    : limit_(limit), interval_(interval), poll_(std::move(poll)),
      fail_(std::move(fail)) {
  thread_ = std::thread([this] { watch(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  thread_.join();
}

Watchdog::Wait::Wait(Watchdog &dog, const char *what) : dog_(dog) {
  std::lock_guard<std::mutex> lock(dog_.mutex_);
  dog_.waitingFor_ = what;
  dog_.waitingSince_ = std::chrono::steady_clock::now();
}

Watchdog::Wait::~Wait() {
  std::lock_guard<std::mutex> lock(dog_.mutex_);
  dog_.waitingFor_ = nullptr;
}

void Watchdog::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_.wait_for(lock, interval_, [&] { return stopping_; })) {
    std::string problem;
    if (limit_.count() > 0 && waitingFor_) {
      auto waited = std::chrono::steady_clock::now() - waitingSince_;
      if (waited > limit_)
        problem = "no progress for " +
                  std::to_string(
                      std::chrono::duration_cast<std::chrono::seconds>(waited)
                          .count()) +
                  " s waiting for " + waitingFor_ +
                  " (a peer rank stopped, or the ranks' collectives disagree)";
    }
    // The poll may take a while (it asks the library): not under the lock
    // the waits take.
    lock.unlock();
    if (problem.empty())
      problem = poll_();
    if (!problem.empty()) {
      fail_(problem);
      return; // a fail that returns (a test's) is told once
    }
    lock.lock();
  }
}

} // namespace hdrt
