//===- Kernels.h - CPU layer kernels on one tile ----------------*- C++ -*-===//
//
// Forward and backward kernels of hd's layers on dense row-major buffers:
// NCHW images and NxF features; convolution and pooling also take image
// tiles in the blocked nChw<B>c layout their TileLayouts name (B =
// channelBlock()). A task runs them on its own tile: the
// input buffer is the tile's input box (halo included), so the padding a
// kernel sees is per side and may be asymmetric (a halo replaces padding
// inside the image). Convolution, pooling, fully-connected and ReLU's
// backward run on oneDNN; every oneDNN call lives in Kernels.cpp (its v3
// API differs).
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_CPU_KERNELS_H
#define HDRT_CPU_KERNELS_H

#include "hdrt/common/Geometry.h"

#include <cstdint>

namespace hdrt::cpu {

/// The channel block of oneDNN's fastest image layout on this CPU: 16 with
/// AVX-512 (nChw16c), else 8 (nChw8c).
int64_t channelBlock();

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

/// Bytes of the workspace in which max pooling's forward leaves, for its
/// backward, where each window's maximum is; 0 for average pooling.
int64_t pool2dWorkspaceBytes(const Pool2dShape &s);
/// `workspace` (pool2dWorkspaceBytes, or null) receives the maxima's places.
void pool2dForward(const Pool2dShape &s, const float *in, float *out,
                   void *workspace = nullptr);
/// dIn (overwritten) from dOut; max pooling routes each gradient to the
/// window's maximum: from the `workspace` the forward of `in` filled, or,
/// where null, found again in `in`.
void pool2dBackward(const Pool2dShape &s, const float *in, const float *dOut,
                    float *dIn, const void *workspace = nullptr);

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
