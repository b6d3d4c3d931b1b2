//===- SeparablePeaks.h - peaks from the separable form ---------*- C++ -*-===//
//
// The fast exact way to a transfer's loads (Transfer.h), for the tiles that
// have a separable form; transferLoads and transferPeaks choose between it
// and enumeration.
//
//===----------------------------------------------------------------------===//

#ifndef HD_LIB_COSTMODEL_SEPARABLEPEAKS_H
#define HD_LIB_COSTMODEL_SEPARABLEPEAKS_H

#include "hd/CostModel/Transfer.h"

namespace hd {

/// The peaks of a transfer whose consumer tiles are separable. With
/// `perDevice`, also every device's and node's loads there, over every
/// device (not only the first of the identical slabs).
TransferPeaks separablePeaks(const Machine &machine, const ProducerGrid &grid,
                             const ConsumerTiles &tiles,
                             TransferLoads *perDevice);

} // namespace hd

#endif // HD_LIB_COSTMODEL_SEPARABLEPEAKS_H
