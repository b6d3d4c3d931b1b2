//===- Watchdog.h - ends a rank whose device never answers ------*- C++ -*-===//
//
// A collective whose peer is gone, or two ranks that disagree on the order
// of their collectives, leave a GPU kernel spinning and the host blocked in
// a stream synchronize: no error, no end. A watchdog thread notices two
// things: an error a library reports asynchronously (`poll`, NCCL's
// ncclCommGetAsyncError), and a wait on the device that has lasted longer
// than `limit`. Either ends the job through `fail`, which is given what
// happened and does not return (aborting the communicators, then the MPI
// job).
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_COMMON_WATCHDOG_H
#define HDRT_COMMON_WATCHDOG_H

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace hdrt {

class Watchdog {
public:
  using Poll = std::function<std::string()>;
  using Fail = std::function<void(const std::string &)>;

  /// Checks `poll` (an empty answer: all is well) every `interval`, and
  /// each wait against `limit`; a zero limit checks no waits.
  Watchdog(std::chrono::milliseconds limit, std::chrono::milliseconds interval,
           Poll poll, Fail fail);
  ~Watchdog();
  Watchdog(const Watchdog &) = delete;
  Watchdog &operator=(const Watchdog &) = delete;

  /// While it lives, the calling thread waits on the device for `what`
  /// ("the step's loss"); waits do not nest.
  class Wait {
  public:
    Wait(Watchdog &dog, const char *what);
    ~Wait();
    Wait(const Wait &) = delete;
    Wait &operator=(const Wait &) = delete;

  private:
    Watchdog &dog_;
  };

private:
  void watch();

  std::chrono::milliseconds limit_, interval_;
  Poll poll_;
  Fail fail_;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  /// The wait in progress: what it is for (null: none) and since when.
  const char *waitingFor_ = nullptr;
  std::chrono::steady_clock::time_point waitingSince_;
  std::thread thread_;
};

} // namespace hdrt

#endif // HDRT_COMMON_WATCHDOG_H
