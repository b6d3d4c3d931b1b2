//===- Kernels.h - CPU layer kernels on one tile ----------------*- C++ -*-===//
//
// Forward and backward kernels of hd's layers on dense row-major buffers:
// NCHW images and NxF features. A task runs them on its own tile: the
// input buffer is the tile's input box (halo included), so the padding a
// kernel sees is per side and may be asymmetric (a halo replaces padding
// inside the image). Convolution, pooling, fully-connected and ReLU's
// backward run on oneDNN; every oneDNN call lives in Kernels.cpp (its v3
// API differs).
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_CPU_KERNELS_H
#define HDRT_CPU_KERNELS_H

#include <cstdint>

namespace hdrt::cpu {

/// A 2-D window over an NCHW input box.
struct Window2d {
  int64_t n = 1, c = 1, h = 1, w = 1;   // input box
  int64_t kh = 1, kw = 1;
  int64_t strideH = 1, strideW = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  int64_t dilationH = 1, dilationW = 1;

  int64_t outH() const {
    return (h + padTop + padBottom - ((kh - 1) * dilationH + 1)) / strideH + 1;
  }
  int64_t outW() const {
    return (w + padLeft + padRight - ((kw - 1) * dilationW + 1)) / strideW + 1;
  }
};

struct Conv2dShape {
  Window2d window;
  int64_t outChannels = 1; // this tile's output channels
  int64_t groups = 1;
};

/// out[n, k, y, x] = bias[k] + sum in * weight; weight is K x C/G x kh x kw.
/// `bias` may be null.
void conv2dForward(const Conv2dShape &s, const float *in, const float *weight,
                   const float *bias, float *out);
/// dIn = the gradient of the input box (overwritten).
void conv2dBackwardData(const Conv2dShape &s, const float *dOut,
                        const float *weight, float *dIn);
/// dWeight (and dBias when not null) = this tile's parameter gradients
/// (overwritten).
void conv2dBackwardWeights(const Conv2dShape &s, const float *in,
                           const float *dOut, float *dWeight, float *dBias);

struct Pool2dShape {
  Window2d window;
  bool max = true;
  /// Average pooling divides by the whole window, padding included.
  bool countIncludePad = false;
};

void pool2dForward(const Pool2dShape &s, const float *in, float *out);
/// dIn (overwritten) from dOut; max pooling routes each gradient to the
/// window's maximum, which it finds again in `in`.
void pool2dBackward(const Pool2dShape &s, const float *in, const float *dOut,
                    float *dIn);

/// out[n, k] = bias[k] + sum_f in[n, f] * weight[k, f]; `bias` may be null.
void linearForward(int64_t n, int64_t features, int64_t outFeatures,
                   const float *in, const float *weight, const float *bias,
                   float *out);
void linearBackwardData(int64_t n, int64_t features, int64_t outFeatures,
                        const float *dOut, const float *weight, float *dIn);
void linearBackwardWeights(int64_t n, int64_t features, int64_t outFeatures,
                           const float *in, const float *dOut, float *dWeight,
                           float *dBias);

/// out = max(in, 0), except that NaN stays NaN.
void reluForward(int64_t count, const float *in, float *out);
/// dIn = dOut where the input was positive, else 0.
void reluBackward(int64_t count, const float *in, const float *dOut,
                  float *dIn);

} // namespace hdrt::cpu

#endif // HDRT_CPU_KERNELS_H
