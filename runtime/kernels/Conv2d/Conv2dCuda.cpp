//===- Conv2dCuda.cpp - convolutions on cuDNN -----------------------------===//
//
// A convolution's cuDNN descriptors and algorithms are a plan, made once
// per shape and kept for the device's life. Asymmetric padding (a tile
// with a halo on one side) is not a cuDNN convolution unless the extra
// padding is never reached: such an input is copied into a zero-padded
// buffer and convolved without padding. Each direction's algorithm is
// the fastest cuDNN measures for the shape (cudnnFind*, as PyTorch's
// cudnn.benchmark), or its heuristic's first choice
// (--conv-algorithms heuristic), once per shape. The workspace and the
// padded copy are scratch memory every convolution of the device shares.
//
//===----------------------------------------------------------------------===//

#include "Conv2dKernels.h"

#include "cuda/Check.h"
#include "cuda/CudaDevice.h"
#include "cuda/DeviceKernels.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <string>

namespace hdrt {

using namespace cuda;

namespace {

/// cuDNN's descriptors and chosen algorithms for one convolution shape.
/// Asymmetric padding (a tile with a halo on one side) is not a cuDNN
/// convolution (unless the extra padding is never reached): the input is
/// then copied into a zero-padded buffer and convolved without padding.
struct ConvPlan {
  bool padCopy = false;
  Box inBox, paddedBox; // element boxes of the input and its padded copy
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  // One convolution descriptor per direction: each carries the math type
  // of the algorithm chosen for that direction.
  cudnnConvolutionDescriptor_t fwdConv = nullptr, dataConv = nullptr,
                               filterConv = nullptr;
  cudnnConvolutionFwdAlgo_t fwd{};
  cudnnConvolutionBwdDataAlgo_t bwdData{};
  cudnnConvolutionBwdFilterAlgo_t bwdFilter{};
  size_t workspace = 0; // the largest of the three directions' needs
};

class ConvPlans {
public:
  /// `tf32`: whether convolutions may use TF32 tensor cores; `find`:
  /// whether to time the algorithms rather than ask the heuristic; `log`:
  /// print each plan's choices.
  ConvPlans(bool tf32, bool find, bool log)
      : tf32_(tf32), find_(find), log_(log) {}
  ConvPlans(const ConvPlans &) = delete;
  ConvPlans &operator=(const ConvPlans &) = delete;
  ~ConvPlans() { clear(); }

  /// Destroys every plan's descriptors; the device releases its kernel
  /// sets before it destroys its cuDNN handle.
  void clear();

  /// The plan of `s`, made with `dnn` the first time it is asked for.
  ConvPlan &get(cudnnHandle_t dnn, const Conv2dShape &s);

private:
  using ConvKey = std::array<int64_t, 16>;

  template <typename Perf>
  const Perf &pick(const Perf *results, int count, const char *direction) const;
  void log(const Conv2dShape &s, const ConvPlan &p, const float ms[3]) const;

  bool tf32_, find_, log_;
  std::map<ConvKey, ConvPlan> plans_;
};

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
  // Each direction's choice, once per shape: timed by cuDNN (as PyTorch
  // with cudnn.benchmark; it costs some milliseconds per shape at the
  // first step) or the heuristic's first. Each direction's descriptor then
  // takes its algorithm's math type, and the workspace is what cuDNN says
  // that algorithm needs with that descriptor.
  int found = 0;
  size_t need = 0;
  float ms[3] = {-1, -1, -1}; // the measured times, when found
  cudnnConvolutionFwdAlgoPerf_t fwd[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  if (find_)
    HDRT_CUDA_CHECK(cudnnFindConvolutionForwardAlgorithm(
        dnn, p.x, p.w, p.fwdConv, p.y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found,
        fwd));
  else
    HDRT_CUDA_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(
        dnn, p.x, p.w, p.fwdConv, p.y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found,
        fwd));
  const auto &f = pick(fwd, found, "forward");
  p.fwd = f.algo;
  ms[0] = find_ ? f.time : -1;
  HDRT_CUDA_CHECK(cudnnSetConvolutionMathType(p.fwdConv, f.mathType));
  HDRT_CUDA_CHECK(cudnnGetConvolutionForwardWorkspaceSize(
      dnn, p.x, p.w, p.fwdConv, p.y, p.fwd, &need));
  p.workspace = std::max(p.workspace, need);

  cudnnConvolutionBwdDataAlgoPerf_t data[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  if (find_)
    HDRT_CUDA_CHECK(cudnnFindConvolutionBackwardDataAlgorithm(
        dnn, p.w, p.y, p.dataConv, p.x, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
        &found, data));
  else
    HDRT_CUDA_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
        dnn, p.w, p.y, p.dataConv, p.x, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
        &found, data));
  const auto &d = pick(data, found, "backward-data");
  p.bwdData = d.algo;
  ms[1] = find_ ? d.time : -1;
  HDRT_CUDA_CHECK(cudnnSetConvolutionMathType(p.dataConv, d.mathType));
  HDRT_CUDA_CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(
      dnn, p.w, p.y, p.dataConv, p.x, p.bwdData, &need));
  p.workspace = std::max(p.workspace, need);

  cudnnConvolutionBwdFilterAlgoPerf_t
      filter[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  if (find_)
    HDRT_CUDA_CHECK(cudnnFindConvolutionBackwardFilterAlgorithm(
        dnn, p.x, p.y, p.filterConv, p.w,
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &found, filter));
  else
    HDRT_CUDA_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
        dnn, p.x, p.y, p.filterConv, p.w,
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &found, filter));
  const auto &g = pick(filter, found, "backward-filter");
  p.bwdFilter = g.algo;
  ms[2] = find_ ? g.time : -1;
  HDRT_CUDA_CHECK(cudnnSetConvolutionMathType(p.filterConv, g.mathType));
  HDRT_CUDA_CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(
      dnn, p.x, p.y, p.filterConv, p.w, p.bwdFilter, &need));
  p.workspace = std::max(p.workspace, need);
  if (log_)
    log(s, p, ms);
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

/// One line per plan, for the algorithm log (--log-conv-algorithms).
void ConvPlans::log(const Conv2dShape &s, const ConvPlan &p,
                    const float ms[3]) const {
  const Window2d &w = s.window;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr,
               "hd: conv plan rank %d: in %lldx%lldx%lldx%lld out %lld "
               "kernel %lldx%lld stride %lldx%lld groups %lld%s: fwd algo %d "
               "(%.3f ms), bwd-data algo %d (%.3f ms), bwd-filter algo %d "
               "(%.3f ms), workspace %zu bytes, %s\n",
               rank, (long long)w.n, (long long)w.c, (long long)w.h,
               (long long)w.w, (long long)s.outChannels, (long long)w.kh,
               (long long)w.kw, (long long)w.strideH, (long long)w.strideW,
               (long long)s.groups, p.padCopy ? " (padded copy)" : "",
               int(p.fwd), ms[0], int(p.bwdData), ms[1], int(p.bwdFilter),
               ms[2], p.workspace, find_ ? "timed" : "heuristic");
}

class CudaConv2d final : public Conv2dKernels {
public:
  explicit CudaConv2d(Device &d)
      : gpu_(CudaDevice::of(d)),
        plans_(gpu_.options().tf32, gpu_.options().findConvAlgorithms,
               gpu_.options().logConvAlgorithms),
        workspace_(gpu_.memoryCounter()), padScratch_(gpu_.memoryCounter()) {}

  void forward(const Conv2dShape &s, const float *in, const float *w,
               const float *bias, float *out) override {
    CudaDevice::requirePlainLayouts(s.layouts);
    ConvPlan &p = plans_.get(gpu_.dnn(), s);
    const float one = 1, zero = 0;
    const float *x = padded(p, in);
    HDRT_CUDA_CHECK(cudnnConvolutionForward(
        gpu_.dnn(), &one, p.x, x, p.w, w, p.fwdConv, p.fwd,
        workspace_.get(p.workspace, gpu_.stream()), p.workspace, &zero, p.y,
        out));
    if (bias)
      HDRT_CUDA_CHECK(
          cudnnAddTensor(gpu_.dnn(), &one, p.bias, bias, &one, p.y, out));
  }

  void backwardData(const Conv2dShape &s, const float *dOut, const float *w,
                    float *dIn) override {
    CudaDevice::requirePlainLayouts(s.layouts);
    ConvPlan &p = plans_.get(gpu_.dnn(), s);
    const float one = 1, zero = 0;
    float *dx = p.padCopy
                    ? static_cast<float *>(padScratch_.get(
                          p.paddedBox.volume() * sizeof(float), gpu_.stream()))
                    : dIn;
    HDRT_CUDA_CHECK(cudnnConvolutionBackwardData(
        gpu_.dnn(), &one, p.w, w, p.y, dOut, p.dataConv, p.bwdData,
        workspace_.get(p.workspace, gpu_.stream()), p.workspace, &zero, p.x,
        dx));
    if (p.padCopy) {
      cuda::copyRegion(gpu_.stream(), dx, p.paddedBox, dIn, p.inBox, p.inBox,
                       false);
      HDRT_CUDA_CHECK(cudaGetLastError());
    }
  }

  void backwardWeights(const Conv2dShape &s, const float *in, const float *dOut,
                       float *dW, float *dBias) override {
    CudaDevice::requirePlainLayouts(s.layouts);
    ConvPlan &p = plans_.get(gpu_.dnn(), s);
    const float one = 1, zero = 0;
    const float *x = padded(p, in);
    HDRT_CUDA_CHECK(cudnnConvolutionBackwardFilter(
        gpu_.dnn(), &one, p.x, x, p.y, dOut, p.filterConv, p.bwdFilter,
        workspace_.get(p.workspace, gpu_.stream()), p.workspace, &zero, p.w,
        dW));
    if (dBias)
      HDRT_CUDA_CHECK(cudnnConvolutionBackwardBias(gpu_.dnn(), &one, p.y, dOut,
                                                   &zero, p.bias, dBias));
  }

private:
  /// The input as cuDNN convolves it: `in` itself, or its zero-padded copy.
  const float *padded(ConvPlan &p, const float *in) {
    if (!p.padCopy)
      return in;
    float *copy = static_cast<float *>(
        padScratch_.get(p.paddedBox.volume() * sizeof(float), gpu_.stream()));
    cuda::fill(gpu_.stream(), copy, p.paddedBox.volume(), 0.0f);
    cuda::copyRegion(gpu_.stream(), in, p.inBox, copy, p.paddedBox, p.inBox,
                     false);
    HDRT_CUDA_CHECK(cudaGetLastError());
    return copy;
  }

  CudaDevice &gpu_;
  ConvPlans plans_;
  Scratch workspace_, padScratch_;
};

} // namespace

HDRT_REGISTER_KERNELS(Conv2dKernels, "cuda", CudaConv2d);

} // namespace hdrt
