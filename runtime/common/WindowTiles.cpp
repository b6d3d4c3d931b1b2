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

int64_t Conv2dLayer::outH() const {
  return (h + padTop + padBottom - ((kh - 1) * dilationH + 1)) / strideH + 1;
}

int64_t Conv2dLayer::outW() const {
  return (w + padLeft + padRight - ((kw - 1) * dilationW + 1)) / strideW + 1;
}

ConvTile convTile(const Conv2dLayer &l, const Box &out) {
  ConvTile t;
  Span rows = span(out.lo[2], out.hi[2], l.h, l.kh, l.strideH, l.padTop,
                   l.dilationH);
  Span cols = span(out.lo[3], out.hi[3], l.w, l.kw, l.strideW, l.padLeft,
                   l.dilationW);
  // Input channels: all of them, or the groups the output channels use.
  int64_t outPerGroup = l.k / l.groups, inPerGroup = l.c / l.groups;
  int64_t firstGroup = out.lo[1] / outPerGroup;
  int64_t lastGroup = (out.hi[1] - 1) / outPerGroup + 1;
  t.in.rank = 4;
  int64_t lo[4] = {out.lo[0], firstGroup * inPerGroup, rows.lo, cols.lo};
  int64_t hi[4] = {out.hi[0], lastGroup * inPerGroup, rows.hi, cols.hi};
  std::copy(lo, lo + 4, t.in.lo);
  std::copy(hi, hi + 4, t.in.hi);
  Window2d &w = t.shape.window;
  w = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], hi[3] - lo[3],
       l.kh,          l.kw,          l.strideH,     l.strideW,
       rows.padLo,    cols.padLo,    rows.padHi,    cols.padHi,
       l.dilationH,   l.dilationW};
  t.shape.outChannels = out.hi[1] - out.lo[1];
  t.shape.groups = lastGroup - firstGroup;
  t.firstOutChannel = out.lo[1];
  return t;
}

PoolTile poolTile(const Pool2dLayer &l, const Box &out) {
  const Window2d &w = l.window;
  Span rows = span(out.lo[2], out.hi[2], w.h, w.kh, w.strideH, w.padTop, 1);
  Span cols = span(out.lo[3], out.hi[3], w.w, w.kw, w.strideW, w.padLeft, 1);
  PoolTile t;
  t.in.rank = 4;
  int64_t lo[4] = {out.lo[0], out.lo[1], rows.lo, cols.lo};
  int64_t hi[4] = {out.hi[0], out.hi[1], rows.hi, cols.hi};
  std::copy(lo, lo + 4, t.in.lo);
  std::copy(hi, hi + 4, t.in.hi);
  t.shape.window = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2],
                    hi[3] - lo[3], w.kh,          w.kw,
                    w.strideH,     w.strideW,     rows.padLo,
                    cols.padLo,    rows.padHi,    cols.padHi,
                    1,             1};
  t.shape.max = l.max;
  t.shape.countIncludePad = l.countIncludePad;
  return t;
}

} // namespace hdrt
