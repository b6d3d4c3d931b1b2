//===- WindowTiles.cpp - window layers' work on one output tile -----------===//

#include "hdrt/common/WindowTiles.h"

#include <algorithm>

namespace hdrt {

namespace {

/// One spatial dim: the input rows output rows [lo, hi) read, clipped to
/// [0, size), and the padding the kernel sees on each side of them.
struct Span {
  int64_t lo, hi, padLo, padHi;
};

Span span(int64_t lo, int64_t hi, int64_t size, int64_t kernel, int64_t stride,
          int64_t pad, int64_t dilation) {
  int64_t first = lo * stride - pad;
  int64_t last = (hi - 1) * stride - pad + (kernel - 1) * dilation + 1;
  Span s{std::max<int64_t>(first, 0), std::min(last, size), 0, 0};
  // A window entirely in the padding reads nothing: an empty span.
  s.lo = std::min(s.lo, size);
  s.hi = std::max(s.hi, s.lo);
  s.padLo = s.lo - first;
  s.padHi = last - s.hi;
  return s;
}

} // namespace

WindowTile windowTile(const Window2d &l, const Box &out, int64_t channelLo,
                      int64_t channelHi) {
  Span rows =
      span(out.lo[2], out.hi[2], l.h, l.kh, l.strideH, l.padTop, l.dilationH);
  Span cols =
      span(out.lo[3], out.hi[3], l.w, l.kw, l.strideW, l.padLeft, l.dilationW);
  WindowTile t;
  t.in.rank = 4;
  int64_t lo[4] = {out.lo[0], channelLo, rows.lo, cols.lo};
  int64_t hi[4] = {out.hi[0], channelHi, rows.hi, cols.hi};
  std::copy(lo, lo + 4, t.in.lo);
  std::copy(hi, hi + 4, t.in.hi);
  t.window = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], hi[3] - lo[3],
              l.kh,          l.kw,          l.strideH,     l.strideW,
              rows.padLo,    cols.padLo,    rows.padHi,    cols.padHi,
              l.dilationH,   l.dilationW};
  return t;
}

} // namespace hdrt
