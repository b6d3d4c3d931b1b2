//===- TimersTest.cpp - a step timed by the device's own marks ------------===//
//
// A GPU's categories are timed by marks in its work order, read when the
// totals are taken. A device whose clock the test sets stands in for it:
// every charge must land in its category with the device's times, spans
// must be placed from the step's origin, and marks must not outlive a take.
//
//===----------------------------------------------------------------------===//

#include "exec/Timers.h"

#include <gtest/gtest.h>

namespace {

using namespace hdrt;
using exec::Category;

/// A device whose work takes the time the test says: a mark reads `clock`.
class ClockDevice final : public Device {
public:
  double clock = 0;
  int64_t reads = 0;
  std::vector<double> marks;

  int64_t markTime() override {
    marks.push_back(clock);
    return int64_t(marks.size()) - 1;
  }
  double secondsBetween(int64_t from, int64_t to) override {
    ++reads;
    return marks.at(size_t(to)) - marks.at(size_t(from));
  }
  void clearMarks() override { marks.clear(); }

  const char *backend() const override { return "clock"; }
  std::string describe() const override { return "clock"; }
  void *allocate(size_t) override { return nullptr; }
  void release(void *, size_t) override {}
  void upload(void *, const void *, size_t) override {}
  void download(void *, const void *, size_t) override {}
  void fence() override {}
  void fill(float *, int64_t, float) override {}
  void copyRegion(const float *, const Box &, float *, const Box &,
                  const Box &) override {}
  void addRegion(const float *, const Box &, float *, const Box &,
                 const Box &) override {}
  void copyRows(float *, int64_t, const float *, int64_t, int64_t,
                int64_t) override {}
  bool allFinite(const float *, int64_t) override { return true; }
  int allReduce(MPI_Comm, void *, int64_t, ElementType, ReduceOp) override {
    return 0;
  }
  int exchangeForward(MPI_Comm, const std::vector<mpi::Move> &, mpi::Side,
                      const float *, float *) override {
    return 0;
  }
  int exchangeBackward(MPI_Comm, const std::vector<mpi::Move> &, mpi::Side,
                       float *, const float *) override {
    return 0;
  }
};

} // namespace

TEST(Timers, MarkedStepsLandInTheirCategories) {
  ClockDevice gpu;
  exec::Timers timers;
  timers.useMarks(&gpu);
  for (int step = 0; step < 3; ++step) {
    gpu.clock = 100.0 * step; // each step's marks start afresh
    timers.take();
    timers.tracing = true;
    timers.origin = timers.now();
    timers.spans.clear();
    std::string conv = "conv";
    {
      exec::Charge compute(timers, Category::Compute, &conv, " fwd");
      gpu.clock += 1;
      {
        exec::KernelTimer kernel(timers);
        gpu.clock += 4;
      }
      {
        exec::Charge sync(timers, Category::Sync);
        gpu.clock += 2;
      }
      gpu.clock += 0.5;
    }
    gpu.clock += 3; // between charges: the step's other time
    int64_t readsBefore = gpu.reads;
    exec::TimerTotals t = timers.take();
    EXPECT_GT(gpu.reads, readsBefore); // read at the take, not before
    EXPECT_DOUBLE_EQ(t.of(Category::Compute), 5.5);
    EXPECT_DOUBLE_EQ(t.kernel, 4);
    EXPECT_DOUBLE_EQ(t.of(Category::Sync), 2);
    EXPECT_DOUBLE_EQ(t.of(Category::Other), 3);
    ASSERT_EQ(timers.spans.size(), 1u);
    EXPECT_EQ(timers.spans[0].name, "conv fwd");
    EXPECT_DOUBLE_EQ(timers.spans[0].start, 0);
    EXPECT_DOUBLE_EQ(timers.spans[0].end, 7.5);
    // The take cleared the marks but the one the next period starts from.
    EXPECT_EQ(gpu.marks.size(), 1u);
  }
}

TEST(Timers, TheHostClockMarksNothing) {
  ClockDevice gpu;
  exec::Timers timers; // no marking device: MPI_Wtime
  {
    exec::Charge compute(timers, Category::Compute);
    exec::KernelTimer kernel(timers);
  }
  exec::TimerTotals t = timers.take();
  EXPECT_GE(t.of(Category::Compute), t.kernel);
  EXPECT_TRUE(gpu.marks.empty());
}
