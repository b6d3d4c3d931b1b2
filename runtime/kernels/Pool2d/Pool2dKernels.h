//===- Pool2dKernels.h - max or average pooling on one tile -----*- C++ -*-===//
//
// The window runs over the tile's input box with per-side padding (a halo
// replaces padding inside the image); tiles are NCHW or in the device's
// blocked layout.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_KERNELS_POOL2D_POOL2DKERNELS_H
#define HDRT_KERNELS_POOL2D_POOL2DKERNELS_H

#include "hdrt/Kernels.h"
#include "hdrt/Random.h" // HDRT_HOST_DEVICE
#include "hdrt/common/Geometry.h"

#include <cfloat>
#include <cstdint>

namespace hdrt {

/// hd.pool2d's reductions; the numbers cross the ABI in the descriptor's
/// `kind` (the compiler checks them against hd's PoolKind).
enum class PoolKind : int64_t { Max = 0, Avg = 1 };
constexpr int64_t kPoolKinds = 2;

struct Pool2dShape {
  Window2d window;
  bool max = true;
  /// Average pooling divides by the whole window, padding included.
  bool countIncludePad = false;
  TileLayouts layouts;
};

/// A pooling's sizes by value, for kernels: the input box (n, c, h, w),
/// the output plane, the window, its strides and its top and left padding.
struct PoolGeometry {
  int64_t n, c, h, w, outH, outW, kh, kw, sh, sw, pt, pl;
  bool max, countIncludePad;

  HDRT_HOST_DEVICE int64_t outputs() const { return n * c * outH * outW; }
  HDRT_HOST_DEVICE int64_t inputs() const { return n * c * h * w; }
};

inline PoolGeometry geometryOf(const Pool2dShape &p) {
  const Window2d &w = p.window;
  return {w.n,       w.c,
          w.h,       w.w,
          w.outH(),  w.outW(),
          w.kh,      w.kw,
          w.strideH, w.strideW,
          w.padTop,  w.padLeft,
          p.max,     p.countIncludePad};
}

/// The window of output (y, x) clipped to the input box: rows [y0, y1),
/// columns [x0, x1).
HDRT_HOST_DEVICE inline void poolWindowOf(const PoolGeometry &g, int64_t y,
                                          int64_t x, int64_t &y0, int64_t &y1,
                                          int64_t &x0, int64_t &x1) {
  int64_t top = y * g.sh - g.pt, left = x * g.sw - g.pl;
  y0 = top > 0 ? top : 0;
  y1 = top + g.kh < g.h ? top + g.kh : g.h;
  x0 = left > 0 ? left : 0;
  x1 = left + g.kw < g.w ? left + g.kw : g.w;
}

/// The outputs along one dimension whose windows cover input index `r`:
/// [lo, hi], empty when lo > hi.
HDRT_HOST_DEVICE inline void poolCoveringOutputs(int64_t r, int64_t pad,
                                                 int64_t k, int64_t stride,
                                                 int64_t outs, int64_t &lo,
                                                 int64_t &hi) {
  // Window y covers y * stride - pad .. y * stride - pad + k - 1.
  int64_t first = r + pad - k + 1, last = r + pad;
  lo = first <= 0 ? 0 : (first + stride - 1) / stride;
  hi = last / stride < outs - 1 ? last / stride : outs - 1;
}

/// Output element `i` (NCHW) of the pooling of `in`; max pooling also
/// leaves where in its input plane the window's first maximum is, which
/// receives the gradient. A NaN in the window wins the maximum (fmaxf
/// would drop it): a diverging step must stay visible to the loss and the
/// finiteness check.
HDRT_HOST_DEVICE inline void poolForwardAt(const PoolGeometry &g, int64_t i,
                                           const float *in, float *out,
                                           int32_t *argmax) {
  int64_t x = i % g.outW, y = (i / g.outW) % g.outH,
          plane = i / (g.outH * g.outW);
  const float *src = in + plane * g.h * g.w;
  int64_t y0, y1, x0, x1;
  poolWindowOf(g, y, x, y0, y1, x0, x1);
  if (g.max) {
    float best = -FLT_MAX, first = -FLT_MAX;
    int64_t at = -1;
    for (int64_t r = y0; r < y1; ++r)
      for (int64_t q = x0; q < x1; ++q) {
        float v = src[r * g.w + q];
        best = (v > best || v != v) ? v : best;
        if (at < 0 || v > first) {
          first = v;
          at = r * g.w + q;
        }
      }
    out[i] = best;
    argmax[i] = int32_t(at);
  } else {
    double sum = 0;
    for (int64_t r = y0; r < y1; ++r)
      for (int64_t q = x0; q < x1; ++q)
        sum += src[r * g.w + q];
    int64_t count = g.countIncludePad ? g.kh * g.kw : (y1 - y0) * (x1 - x0);
    out[i] = count > 0 ? float(sum / double(count)) : 0.0f;
  }
}

/// The gradient of input element `i` (NCHW): the gradients of the windows
/// that cover it and, for max pooling, chose it (`argmax`, as
/// poolForwardAt left it), gathered in a fixed order.
HDRT_HOST_DEVICE inline float poolGradientAt(const PoolGeometry &g, int64_t i,
                                             const float *dOut,
                                             const int32_t *argmax) {
  int64_t q = i % g.w, r = (i / g.w) % g.h, plane = i / (g.h * g.w);
  int64_t ylo, yhi, xlo, xhi;
  poolCoveringOutputs(r, g.pt, g.kh, g.sh, g.outH, ylo, yhi);
  poolCoveringOutputs(q, g.pl, g.kw, g.sw, g.outW, xlo, xhi);
  const float *grads = dOut + plane * g.outH * g.outW;
  float sum = 0;
  if (g.max) {
    const int32_t *places = argmax + plane * g.outH * g.outW;
    int32_t me = int32_t(r * g.w + q);
    for (int64_t y = ylo; y <= yhi; ++y)
      for (int64_t x = xlo; x <= xhi; ++x)
        if (places[y * g.outW + x] == me)
          sum += grads[y * g.outW + x];
  } else {
    for (int64_t y = ylo; y <= yhi; ++y)
      for (int64_t x = xlo; x <= xhi; ++x) {
        int64_t y0, y1, x0, x1;
        poolWindowOf(g, y, x, y0, y1, x0, x1);
        int64_t count = g.countIncludePad ? g.kh * g.kw : (y1 - y0) * (x1 - x0);
        if (count > 0)
          sum += grads[y * g.outW + x] / float(count);
      }
  }
  return sum;
}

class Pool2dKernels : public KernelSet {
public:
  static constexpr const char *kName = "Pool2d";

  /// Bytes of the workspace in which max pooling's forward leaves, for its
  /// backward, where each window's maximum is; 0 where the backward finds
  /// it again (average pooling; a device that searches the window).
  virtual int64_t workspaceBytes(const Pool2dShape &s) = 0;
  /// `workspace` (workspaceBytes of device memory, or null) receives the
  /// maxima's places.
  virtual void forward(const Pool2dShape &s, const float *in, float *out,
                       void *workspace) = 0;
  /// dIn (overwritten) from dOut; max pooling routes each gradient to the
  /// window's first maximum: from the `workspace` the forward of `in`
  /// filled, or, where null, found again in `in` (the CPU; the GPU needs
  /// the workspace).
  virtual void backward(const Pool2dShape &s, const float *in,
                        const float *dOut, float *dIn,
                        const void *workspace) = 0;
};

} // namespace hdrt

#endif // HDRT_KERNELS_POOL2D_POOL2DKERNELS_H
