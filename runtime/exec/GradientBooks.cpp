//===- GradientBooks.cpp - who writes each activation gradient in a step --===//
//
// A gradient that a layer's only reader writes whole needs nothing. One
// that readers add into is zeroed when the step begins, unless several
// readers on this rank share it: then the first reader to reach it writes
// it (in place, where it reads the tile in place and writes its input
// gradient whole; else onto zeros) and the others add into it, which saves
// the zeroing pass.
//
//===----------------------------------------------------------------------===//

#include "RankState.h"

namespace hdrt::exec {

void RankState::startGradients() {
  for (Layer &l : network_.layers()) {
    if (l.zeroGrad)
      device_.fill(l.grad.data(), l.grad.size(), 0.0f);
    l.gradWritten = false;
  }
}

void RankState::touchGradient(Layer &p) {
  if (!p.lazyGrad || p.gradWritten)
    return;
  device_.fill(p.grad.data(), p.grad.size(), 0.0f);
  p.gradWritten = true;
}

void RankState::claimInputGradient(Edge &e) {
  e.writesGradInPlace = false;
  if (!e.hasBox || e.producer < 0 || e.gradAliased || e.explicitTransfer)
    return;
  Layer &p = network_.layers()[e.producer];
  if (!p.lazyGrad)
    return;
  if (!p.gradWritten && e.mayWriteGradInPlace) {
    e.writesGradInPlace = true;
    p.gradWritten = true;
  } else {
    touchGradient(p);
  }
  e.dIn = e.writesGradInPlace ? p.grad.data() : e.dInStorage.data();
}

} // namespace hdrt::exec
