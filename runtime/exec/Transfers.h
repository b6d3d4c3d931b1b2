//===- Transfers.h - a step's data movement between layers ------*- C++ -*-===//
//
// The transfer engine: the explicit transfers between ranks (hd.transfer),
// their messages posted early where the device allows, and the local
// copies of an input box this rank holds of its producer's tile.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_EXEC_TRANSFERS_H
#define HDRT_EXEC_TRANSFERS_H

#include "RankState.h"
#include "Timers.h"

namespace hdrt::exec {

class Transfers {
public:
  Transfers(Network &network, RankState &rank, Device &device, Timers &timers)
      : network_(network), rank_(rank), device_(device), timers_(timers) {}

  /// Gives each transfer its messages posted early, when `early` and the
  /// device's memory is MPI's to reach. Collective.
  void prepare(bool early);

  /// Posts one direction's receives of every transfer.
  void postReceives(bool forward);
  /// After `p`'s forward: sends its tile's boxes to their readers.
  void send(Layer &p);
  /// Before `p`'s backward: adds in the gradients its readers sent.
  void receiveGradients(Layer &p);
  /// Waits for every send in flight.
  void finishSends();
  /// The program's call of a transfer: forward moves boxes of the
  /// producer's tile into the consumer's input box, backward adds their
  /// gradients the other way.
  void run(Edge &e, bool forward);

  /// Before the consumer's forward: its input box from the producer's
  /// tile on this rank, unless it reads the tile in place or a transfer
  /// fills it.
  void gatherLocal(Edge &e);
  /// After the consumer's backward: the box's gradient added into the
  /// producer's, the other way.
  void scatterLocal(Edge &e);

private:
  Network &network_;
  RankState &rank_;
  Device &device_;
  Timers &timers_;
  /// The communicator of transfers whose messages are posted early.
  MPI_Comm comm_ = MPI_COMM_NULL;
};

} // namespace hdrt::exec

#endif // HDRT_EXEC_TRANSFERS_H
