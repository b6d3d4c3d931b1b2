//===- WatchdogTest.cpp - a wait that never ends ends the job -------------===//
//
// The watchdog's `fail` here records what it was told instead of ending the
// process. Limits are short and the checks wait far longer than them, so
// that a loaded machine does not make the test flaky.
//
//===----------------------------------------------------------------------===//

#include "hdrt/common/Watchdog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>

using namespace std::chrono_literals;

namespace {

/// What the watchdog reported, once.
struct Report {
  std::mutex mutex;
  std::string message;
  std::atomic<int> times{0};
  hdrt::Watchdog::Fail fail() {
    return [this](const std::string &m) {
      std::lock_guard<std::mutex> lock(mutex);
      message = m;
      ++times;
    };
  }
  bool waitFor(std::chrono::milliseconds most) {
    auto end = std::chrono::steady_clock::now() + most;
    while (times == 0 && std::chrono::steady_clock::now() < end)
      std::this_thread::sleep_for(5ms);
    return times > 0;
  }
};

} // namespace

TEST(Watchdog, AWaitPastTheLimitFailsNamingIt) {
  Report report;
  hdrt::Watchdog dog(
      100ms, 10ms, [] { return std::string(); }, report.fail());
  {
    hdrt::Watchdog::Wait wait(dog, "the step's loss");
    EXPECT_TRUE(report.waitFor(10s));
  }
  EXPECT_EQ(report.times, 1);
  EXPECT_NE(report.message.find("waiting for the step's loss"),
            std::string::npos)
      << report.message;
}

TEST(Watchdog, AnAsynchronousErrorFailsWithoutAWait) {
  Report report;
  std::atomic<bool> broken{false};
  hdrt::Watchdog dog(
      0ms, 10ms,
      [&] {
        return broken ? std::string("NCCL: remote error") : std::string();
      },
      report.fail());
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(report.times, 0);
  broken = true;
  EXPECT_TRUE(report.waitFor(10s));
  EXPECT_EQ(report.message, "NCCL: remote error");
}

TEST(Watchdog, ShortWaitsAndNoLimitNeverFail) {
  Report report;
  {
    hdrt::Watchdog dog(
        2s, 5ms, [] { return std::string(); }, report.fail());
    for (int i = 0; i < 20; ++i) {
      hdrt::Watchdog::Wait wait(dog, "a short wait");
      std::this_thread::sleep_for(5ms);
    }
    // Between waits, time does not count.
    std::this_thread::sleep_for(100ms);
  }
  {
    hdrt::Watchdog dog(
        0ms, 5ms, [] { return std::string(); }, report.fail());
    hdrt::Watchdog::Wait wait(dog, "a wait without a limit");
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(report.times, 0) << report.message;
}
