//===- TransferLoads.cpp - a transfer's loads by enumeration --------------===//
//
// The plain exact way to a transfer's loads (Transfer.h): every overlapping
// pair of tasks adds its bytes to the links it crosses. It prices tiles
// that have no separable form, and the tests check the separable form
// against it; transferLoads and transferPeaks pick one of the two.
//
//===----------------------------------------------------------------------===//

#include "hd/CostModel/Transfer.h"

#include "SeparablePeaks.h"

#include <algorithm>

namespace hd {

static void addFlow(const Machine &m, const Flow &f, double elementBytes,
                    TransferLoads &loads) {
  double bytes = elementBytes * f.elements;
  loads.elements += f.elements;
  ++loads.msgsOut[f.src];
  ++loads.msgsIn[f.dst];
  int64_t a = m.nodeOf(f.src), b = m.nodeOf(f.dst);
  if (a == b) {
    loads.maxPairBytes = std::max(loads.maxPairBytes, bytes);
    loads.devOut[f.src] += bytes;
    loads.devIn[f.dst] += bytes;
  } else {
    loads.nicOut[a] += bytes;
    loads.nicIn[b] += bytes;
  }
}

void transferLoads(const Machine &machine, const ProducerGrid &producer,
                   const ConsumerTiles &tiles, bool allowSeparable,
                   TransferLoads &loads) {
  int64_t devices =
      std::max<int64_t>(producer.config.tasks(), tiles.boxes.size());
  int64_t nodes = machine.nodeOf(devices - 1) + 1;
  loads.maxPairBytes = 0;
  loads.elements = 0;
  for (auto *v : {&loads.devOut, &loads.devIn})
    v->assign(devices, 0);
  for (auto *v : {&loads.nicOut, &loads.nicIn})
    v->assign(nodes, 0);
  for (auto *v : {&loads.msgsOut, &loads.msgsIn})
    v->assign(devices, 0);
  if (allowSeparable && tiles.separable) {
    separablePeaks(machine, producer, tiles, &loads);
    return;
  }
  forEachFlow(producer.shape, producer.config, tiles, [&](const Flow &f) {
    addFlow(machine, f, producer.elementBytes, loads);
  });
}

TransferPeaks peaksOf(const TransferLoads &loads) {
  TransferPeaks peaks;
  peaks.maxPairBytes = loads.maxPairBytes;
  peaks.elements = loads.elements;
  for (size_t d = 0; d < loads.devOut.size(); ++d)
    peaks.maxPortBytes =
        std::max({peaks.maxPortBytes, loads.devOut[d], loads.devIn[d]});
  for (size_t n = 0; n < loads.nicOut.size(); ++n)
    peaks.maxNicBytes =
        std::max({peaks.maxNicBytes, loads.nicOut[n], loads.nicIn[n]});
  for (size_t d = 0; d < loads.msgsOut.size(); ++d)
    peaks.maxMessages =
        std::max({peaks.maxMessages, loads.msgsOut[d], loads.msgsIn[d]});
  return peaks;
}

TransferPeaks transferPeaks(const Machine &machine,
                            const ProducerGrid &producer,
                            const ConsumerTiles &tiles,
                            TransferLoads *perDevice) {
  if (!tiles.separable || perDevice) {
    thread_local TransferLoads loads;
    TransferLoads &target = perDevice ? *perDevice : loads;
    transferLoads(machine, producer, tiles, true, target);
    return peaksOf(target);
  }
  return separablePeaks(machine, producer, tiles, nullptr);
}

} // namespace hd
