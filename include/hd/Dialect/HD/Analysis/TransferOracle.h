//===- TransferOracle.h - plans checked element by element -----*- C++ -*-===//
//
// What --hd-verify-transfers holds a plan to, computed apart from the
// planner (hd/Tiling/TransferPlan.h) so that a bug there cannot vouch for
// itself: every element's owner from the block partition's arithmetic
// alone, every consumer task's input box from its tile, and then, element
// by element, that each task receives exactly what its box needs and its
// own device does not hold, once, from the device that holds it. Where no
// transfer is planned, each task's box must be its own device's tile.
// Enumeration is exact but costs one step per element, so it runs where
// the boxes are small (`maxElements`).
//
//===----------------------------------------------------------------------===//

#ifndef HD_DIALECT_HD_ANALYSIS_TRANSFERORACLE_H
#define HD_DIALECT_HD_ANALYSIS_TRANSFERORACLE_H

#include "hd/Tiling/TileBox.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hd {

struct OracleMove {
  int64_t src = 0, dst = 0;
  std::vector<int64_t> lo, hi;
};

struct OracleEdge {
  std::vector<int64_t> producerShape, producerDegrees;
  std::vector<int64_t> consumerShape, consumerDegrees;
  /// The box of the producer's tensor that the consumer's output tile reads.
  std::function<TileBox(const TileBox &tile)> inputBox;
};

/// The first thing wrong with `moves` (null: no transfer) for `edge`, or
/// none; nothing either where the consumers' boxes hold more than
/// `maxElements` elements together (not checked).
std::optional<std::string>
checkPlanByEnumeration(const OracleEdge &edge,
                       const std::vector<OracleMove> *moves,
                       int64_t maxElements);

} // namespace hd

#endif // HD_DIALECT_HD_ANALYSIS_TRANSFERORACLE_H
