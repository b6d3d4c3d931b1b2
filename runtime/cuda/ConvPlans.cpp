//===- ConvPlans.cpp - cuDNN's plans of convolution shapes ----------------===//
//
// Asymmetric padding (a tile with a halo on one side) is not a cuDNN
// convolution unless the extra padding is never reached: such an input is
// copied into a zero-padded buffer and convolved without padding. Each
// direction's algorithm is cuDNN's heuristic choice, once per shape.
//
//===----------------------------------------------------------------------===//

#include "ConvPlans.h"

#include "Check.h"

#include <algorithm>
#include <string>

namespace hdrt::cuda {

namespace {

std::array<int64_t, 16> keyOf(const Conv2dShape &s) {
  const Window2d &w = s.window;
  return {w.n,         w.c,         w.h,           w.w,
          w.kh,        w.kw,        w.strideH,     w.strideW,
          w.padTop,    w.padLeft,   w.padBottom,   w.padRight,
          w.dilationH, w.dilationW, s.outChannels, s.groups};
}

Box box4(int64_t n, int64_t c, int64_t h, int64_t w, int64_t top = 0,
         int64_t left = 0) {
  Box b;
  b.rank = 4;
  int64_t lo[4] = {0, 0, -top, -left}, hi[4] = {n, c, h - top, w - left};
  for (int d = 0; d < 4; ++d) {
    b.lo[d] = lo[d];
    b.hi[d] = hi[d];
  }
  return b;
}

/// Whether cuDNN's symmetric padding of `lo` on both sides gives the
/// same outputs as padding `lo` and `hi`: a strided window that never
/// reaches the extra padding (ResNet's 3x3 stride-2 convolutions, whose
/// exact bottom padding is 0) then needs no padded copy.
bool symmetricEnough(int64_t size, int64_t k, int64_t stride, int64_t dilation,
                     int64_t lo, int64_t hi, int64_t out) {
  return lo == hi ||
         (lo > hi &&
          (size + 2 * lo - ((k - 1) * dilation + 1)) / stride + 1 == out);
}

} // namespace

void ConvPlans::clear() {
  // Best effort: the process is ending; errors here have no one to tell.
  for (auto &[key, plan] : plans_) {
    cudnnDestroyTensorDescriptor(plan.x);
    cudnnDestroyTensorDescriptor(plan.y);
    cudnnDestroyTensorDescriptor(plan.bias);
    cudnnDestroyFilterDescriptor(plan.w);
    cudnnDestroyConvolutionDescriptor(plan.fwdConv);
    cudnnDestroyConvolutionDescriptor(plan.dataConv);
    cudnnDestroyConvolutionDescriptor(plan.filterConv);
  }
  plans_.clear();
}

ConvPlan &ConvPlans::get(cudnnHandle_t dnn, const Conv2dShape &s) {
  ConvKey key = keyOf(s);
  auto it = plans_.find(key);
  if (it != plans_.end())
    return it->second;
  const Window2d &w = s.window;
  ConvPlan p;
  p.padCopy = !symmetricEnough(w.h, w.kh, w.strideH, w.dilationH, w.padTop,
                               w.padBottom, w.outH()) ||
              !symmetricEnough(w.w, w.kw, w.strideW, w.dilationW, w.padLeft,
                               w.padRight, w.outW());
  p.inBox = box4(w.n, w.c, w.h, w.w);
  p.paddedBox = box4(w.n, w.c, w.h + w.padTop + w.padBottom,
                     w.w + w.padLeft + w.padRight, w.padTop, w.padLeft);
  int64_t h = p.padCopy ? w.h + w.padTop + w.padBottom : w.h;
  int64_t wd = p.padCopy ? w.w + w.padLeft + w.padRight : w.w;
  int padH = p.padCopy ? 0 : int(w.padTop),
      padW = p.padCopy ? 0 : int(w.padLeft);
  HDRT_CUDA_CHECK(cudnnCreateTensorDescriptor(&p.x));
  HDRT_CUDA_CHECK(cudnnCreateTensorDescriptor(&p.y));
  HDRT_CUDA_CHECK(cudnnCreateTensorDescriptor(&p.bias));
  HDRT_CUDA_CHECK(cudnnCreateFilterDescriptor(&p.w));
  HDRT_CUDA_CHECK(cudnnSetTensor4dDescriptor(p.x, CUDNN_TENSOR_NCHW,
                                             CUDNN_DATA_FLOAT, int(w.n),
                                             int(w.c), int(h), int(wd)));
  HDRT_CUDA_CHECK(cudnnSetFilter4dDescriptor(
      p.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, int(s.outChannels),
      int(w.c / s.groups), int(w.kh), int(w.kw)));
  HDRT_CUDA_CHECK(cudnnSetTensor4dDescriptor(
      p.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, int(w.n), int(s.outChannels),
      int(w.outH()), int(w.outW())));
  HDRT_CUDA_CHECK(cudnnSetTensor4dDescriptor(p.bias, CUDNN_TENSOR_NCHW,
                                             CUDNN_DATA_FLOAT, 1,
                                             int(s.outChannels), 1, 1));
  for (cudnnConvolutionDescriptor_t *conv :
       {&p.fwdConv, &p.dataConv, &p.filterConv}) {
    HDRT_CUDA_CHECK(cudnnCreateConvolutionDescriptor(conv));
    HDRT_CUDA_CHECK(cudnnSetConvolution2dDescriptor(
        *conv, padH, padW, int(w.strideH), int(w.strideW), int(w.dilationH),
        int(w.dilationW), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    HDRT_CUDA_CHECK(cudnnSetConvolutionGroupCount(*conv, int(s.groups)));
    HDRT_CUDA_CHECK(cudnnSetConvolutionMathType(
        *conv, tf32_ ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH));
  }
  // cuDNN's heuristic choice for each direction, once per shape (as
  // PyTorch does unless cudnn.benchmark is set): timing every algorithm
  // of every shape would cost seconds at start-up. Each direction's
  // descriptor then takes its algorithm's math type, and the workspace
  // is what cuDNN says that algorithm needs with that descriptor.
  int found = 0;
  size_t need = 0;
  cudnnConvolutionFwdAlgoPerf_t fwd[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  HDRT_CUDA_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(
      dnn, p.x, p.w, p.fwdConv, p.y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found,
      fwd));
  const auto &f = pick(fwd, found, "forward");
  p.fwd = f.algo;
  HDRT_CUDA_CHECK(cudnnSetConvolutionMathType(p.fwdConv, f.mathType));
  HDRT_CUDA_CHECK(cudnnGetConvolutionForwardWorkspaceSize(
      dnn, p.x, p.w, p.fwdConv, p.y, p.fwd, &need));
  p.workspace = std::max(p.workspace, need);

  cudnnConvolutionBwdDataAlgoPerf_t data[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  HDRT_CUDA_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
      dnn, p.w, p.y, p.dataConv, p.x, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
      &found, data));
  const auto &d = pick(data, found, "backward-data");
  p.bwdData = d.algo;
  HDRT_CUDA_CHECK(cudnnSetConvolutionMathType(p.dataConv, d.mathType));
  HDRT_CUDA_CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(
      dnn, p.w, p.y, p.dataConv, p.x, p.bwdData, &need));
  p.workspace = std::max(p.workspace, need);

  cudnnConvolutionBwdFilterAlgoPerf_t
      filter[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  HDRT_CUDA_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
      dnn, p.x, p.y, p.filterConv, p.w, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
      &found, filter));
  const auto &g = pick(filter, found, "backward-filter");
  p.bwdFilter = g.algo;
  HDRT_CUDA_CHECK(cudnnSetConvolutionMathType(p.filterConv, g.mathType));
  HDRT_CUDA_CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(
      dnn, p.x, p.y, p.filterConv, p.w, p.bwdFilter, &need));
  p.workspace = std::max(p.workspace, need);
  return plans_.emplace(key, p).first->second;
}

/// The first (best ranked) usable result whose workspace fits in 4 GiB.
/// With TF32 off (--no-tf32), only FMA algorithms qualify: cuDNN's
/// ranking may put a tensor-core one first whatever the descriptor asked.
template <typename Perf>
const Perf &ConvPlans::pick(const Perf *results, int count,
                            const char *direction) const {
  for (int i = 0; i < count; ++i)
    if (results[i].status == CUDNN_STATUS_SUCCESS &&
        results[i].memory <= (size_t(4) << 30) &&
        (tf32_ || results[i].mathType == CUDNN_FMA_MATH))
      return results[i];
  throw DeviceError(std::string("cuDNN has no ") + direction +
                    " convolution algorithm for this shape" +
                    (tf32_ ? "" : " without TF32"));
}

} // namespace hdrt::cuda
