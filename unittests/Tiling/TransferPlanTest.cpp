//===- TransferPlanTest.cpp - a transfer's overlaps and plan --------------===//
//
// The oracle is element-by-element ownership: which producer task holds
// each element a consumer task reads. The flows must match it pair by pair,
// and the plan must move exactly the remote parts of every consumer box.
//
//===----------------------------------------------------------------------===//

#include "hd/Tiling/TransferPlan.h"

#include "../Common/ConsumerLayers.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

using namespace hd;
using namespace hd::test;

namespace {

/// The boxes `consumer`'s tasks read of its operand 0 under `config`.
ConsumerBoxes boxesOf(const Layer &consumer, const ParallelConfig &config) {
  return consumerBoxes(consumer.shape, config, [&](const TileBox &tile) {
    return consumer.inputBox(0, tile);
  });
}

} // namespace

// Flows equal, pair by pair, the elements each consumer task reads that a
// different producer task owns, found by scanning every element.
TEST(TransferPlan, FlowsMatchElementOwnership) {
  std::mt19937 rng(42);
  int checked = 0;
  for (int trial = 0; trial < 6; ++trial) {
    std::vector<int64_t> shape;
    for (const Layer &consumer : consumers(shape, rng)) {
      auto pcs = enumerateConfigs(shape, 6);
      auto ccs = enumerateConfigs(consumer.shape, 6);
      for (int k = 0; k < 12; ++k) {
        const ParallelConfig &pc = pcs[rng() % pcs.size()];
        const ParallelConfig &cc = ccs[rng() % ccs.size()];
        std::map<std::pair<int64_t, int64_t>, int64_t> got, want;
        forEachFlow(shape, pc, boxesOf(consumer, cc), [&](const Flow &f) {
          EXPECT_TRUE(
              got.emplace(std::make_pair(f.src, f.dst), f.elements).second)
              << "a pair appears twice";
        });
        for (int64_t q = 0; q < cc.tasks(); ++q) {
          TileBox box =
              consumer.inputBox(0, tileOfTask(consumer.shape, cc.degrees, q));
          for (int64_t a = box[0].lo; a < box[0].hi; ++a)
            for (int64_t b = box[1].lo; b < box[1].hi; ++b)
              for (int64_t y = box[2].lo; y < box[2].hi; ++y)
                for (int64_t x = box[3].lo; x < box[3].hi; ++x)
                  for (int64_t p = 0; p < pc.tasks(); ++p) {
                    TileBox t = tileOfTask(shape, pc.degrees, p);
                    if (a >= t[0].lo && a < t[0].hi && b >= t[1].lo &&
                        b < t[1].hi && y >= t[2].lo && y < t[2].hi &&
                        x >= t[3].lo && x < t[3].hi) {
                      if (p != q)
                        ++want[{p, q}];
                      break;
                    }
                  }
        }
        EXPECT_EQ(got, want) << pc.str() << " -> " << cc.str();
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 400);
}

// The plan moves, into each consumer task in turn, the overlap of its box
// with every other producer task's tile; with what its own device holds,
// that is its whole box. A consumer that reads exactly its own device's
// tiles needs no plan.
TEST(TransferPlan, MovesEveryRemotePartOfEachBox) {
  std::mt19937 rng(3);
  int moved = 0, inPlace = 0;
  for (int trial = 0; trial < 6; ++trial) {
    std::vector<int64_t> shape;
    for (const Layer &consumer : consumers(shape, rng)) {
      auto pcs = enumerateConfigs(shape, 8);
      auto ccs = enumerateConfigs(consumer.shape, 8);
      for (int k = 0; k < 12; ++k) {
        const ParallelConfig &pc = pcs[rng() % pcs.size()];
        // Every third pair reads with the producer's own configuration.
        const ParallelConfig &cc =
            k % 3 == 0 && pc.degrees.size() == consumer.shape.size()
                ? pc
                : ccs[rng() % ccs.size()];
        TileGrid grid = tileGrid(shape, pc);
        ConsumerBoxes boxes = boxesOf(consumer, cc);
        std::vector<BoxMove> plan = transferPlan(grid, boxes);
        std::string what = pc.str() + " -> " + cc.str();
        std::vector<int64_t> received(boxes.boxes.size(), 0);
        for (size_t i = 0; i < plan.size(); ++i) {
          const BoxMove &m = plan[i];
          EXPECT_NE(m.src, m.dst) << what;
          EXPECT_FALSE(m.box.empty()) << what;
          EXPECT_EQ(m.box, intersect(boxes.boxes[m.dst],
                                     tileOfTask(shape, pc.degrees, m.src)))
              << what;
          if (i > 0) {
            EXPECT_LT(std::make_pair(plan[i - 1].dst, plan[i - 1].src),
                      std::make_pair(m.dst, m.src))
                << what;
          }
          received[m.dst] += m.box.volume();
        }
        for (int64_t q = 0; q < int64_t(boxes.boxes.size()); ++q) {
          int64_t own =
              q < pc.tasks()
                  ? intersect(boxes.boxes[q], tileOfTask(shape, pc.degrees, q))
                        .volume()
                  : 0;
          EXPECT_EQ(received[q] + own, boxes.boxes[q].volume()) << what;
        }
        bool readsOwn = readsOwnDeviceTile(grid, boxes);
        EXPECT_TRUE(!readsOwn || plan.empty()) << what;
        moved += !plan.empty();
        inPlace += readsOwn;
      }
    }
  }
  // Both cases occur.
  EXPECT_GE(moved, 400);
  EXPECT_GE(inPlace, 40);
}
