//===- Transfers.cpp - explicit transfers, their messages posted early ----===//
//
// An explicit transfer's messages move while the ranks compute. Each
// direction's receives are posted before its data exist: the forward ones
// when the step begins, the backward ones when its backward pass does. Its
// sends go as soon as their data exist: forward after the producer's
// forward, backward after the consumer's backward. A rank waits only where
// it reads what came in: forward before the consumer's forward (where the
// program calls the transfer), backward before the producer's backward. A
// rank that only sends never waits for its readers until the step ends, and
// a rank switched out by the scheduler does not hold up one that reads from
// it (MPI copies a large message when its receiver matches it).
//
// A device whose memory MPI cannot reach runs each transfer whole where the
// program calls it, as do transfers beyond the tags MPI offers and every
// transfer under --early-transfers off.
//
//===----------------------------------------------------------------------===//

#include "Transfers.h"

#include "Errors.h"

#include <string>

namespace hdrt::exec {

void Transfers::prepare(bool early) {
  if (!early || !device_.hostAccessible())
    return;
  // Each transfer takes two tags, one per direction.
  int64_t transfers = 0;
  for (const Edge &e : network_.edges())
    transfers += e.explicitTransfer && e.producer >= 0;
  int *tagBound = nullptr, found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tagBound, &found);
  if (!transfers || !found || 2 * transfers > int64_t(*tagBound))
    return;
  // Their own communicator: no other message of the runtime can match.
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
  int tag = 0;
  for (Edge &e : network_.edges()) {
    if (!e.explicitTransfer || e.producer < 0)
      continue;
    e.messages = std::make_unique<mpi::Messages>(comm_, e.plan, tag);
    tag += 2;
    network_.layers()[e.producer].postedTransfers.push_back(&e);
  }
}

/// Throws the error of a transfer's MPI call.
static void check(int rc, const std::string &what, const Edge &e) {
  if (rc)
    throw Error("error " + std::to_string(rc) + " in " + what + " '" + e.name +
                "'");
}

void Transfers::postReceives(bool forward) {
  if (comm_ == MPI_COMM_NULL)
    return;
  Charge charge(timers_, Category::Transfer);
  for (Edge &e : network_.edges()) {
    if (!e.messages)
      continue;
    // Backward receives land in the slots forward sent from.
    if (!forward)
      check(e.messages->finishSends(), "the transfer", e);
    check(e.messages->postReceives(forward),
          forward ? "the transfer" : "the backward transfer", e);
  }
}

void Transfers::send(Layer &p) {
  for (Edge *e : p.postedTransfers) {
    Charge charge(timers_, Category::Transfer, &e->name, " (send)");
    auto [tile, box] = localBoxes(p, *e);
    mpi::Side side{&tile, e->hasBox ? &box : nullptr};
    check(e->messages->postSends(side, /*forward=*/true, p.value.data()),
          "the transfer", *e);
  }
}

void Transfers::receiveGradients(Layer &p) {
  if (p.postedTransfers.empty())
    return;
  rank_.touchGradient(p); // the transfers add into it
  for (Edge *e : p.postedTransfers) {
    Charge charge(timers_, Category::Transfer, &e->name, " (backward)");
    auto [tile, box] = localBoxes(p, *e);
    mpi::Side side{&tile, e->hasBox ? &box : nullptr};
    check(e->messages->finishBackward(side, p.grad.data(), e->dIn),
          "the backward transfer", *e);
  }
}

void Transfers::finishSends() {
  if (comm_ == MPI_COMM_NULL)
    return;
  Charge charge(timers_, Category::Transfer);
  for (Edge &e : network_.edges())
    if (e.messages)
      check(e.messages->finishSends(), "the transfer", e);
}

/// An edge's compiled plan: forward moves boxes of the producer's tile into
/// the consumer's input box, backward adds their gradients the other way.
/// With messages posted early, forward waits for what comes in, and
/// backward sends the input box's gradient.
void Transfers::run(Edge &e, bool forward) {
  const char *what = forward ? "the transfer" : "the backward transfer";
  Charge charge(timers_, Category::Transfer, &e.name,
                forward ? "" : " (backward)");
  Layer *p = e.producer >= 0 ? &network_.layers()[e.producer] : nullptr;
  if (!p || !e.explicitTransfer)
    throw Error("edge " + std::to_string(e.id) + " is not a transfer");
  auto [tile, box] = localBoxes(*p, e); // then no move involves this rank
  mpi::Side side{p->task >= 0 ? &tile : nullptr, e.hasBox ? &box : nullptr};
  if (e.messages) {
    if (forward)
      check(e.messages->finishForward(side, p->value.data(), e.in), what, e);
    else
      check(e.messages->postSends(side, /*forward=*/false, e.dIn), what, e);
    return;
  }
  if (!forward && p->task >= 0)
    rank_.touchGradient(*p); // the exchange adds into it
  check(forward ? device_.exchangeForward(MPI_COMM_WORLD, e.plan, side,
                                          p->value.data(), e.in)
                : device_.exchangeBackward(MPI_COMM_WORLD, e.plan, side,
                                           p->grad.data(), e.dIn),
        what, e);
}

void Transfers::gatherLocal(Edge &e) {
  if (!e.hasBox || e.inAliased || e.explicitTransfer || e.producer < 0)
    return;
  const Layer &p = network_.layers()[e.producer];
  auto [tile, box] = localBoxes(p, e);
  device_.copyRegion(p.value.data(), tile, e.in, box, box);
}

void Transfers::scatterLocal(Edge &e) {
  if (!e.hasBox || e.gradAliased || e.writesGradInPlace || e.explicitTransfer ||
      e.producer < 0)
    return;
  Layer &p = network_.layers()[e.producer];
  auto [tile, box] = localBoxes(p, e);
  device_.addRegion(e.dIn, box, p.grad.data(), tile, box);
}

} // namespace hdrt::exec
