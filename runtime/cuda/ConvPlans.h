//===- ConvPlans.h - cuDNN's plans of convolution shapes --------*- C++ -*-===//
//
// A convolution's cuDNN descriptors and algorithms, chosen once per shape
// and cached for the device's life.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_CUDA_CONVPLANS_H
#define HDRT_CUDA_CONVPLANS_H

#include "hdrt/Box.h"
#include "hdrt/common/Geometry.h"

#include <cudnn.h>

#include <array>
#include <map>

namespace hdrt::cuda {

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
  /// `tf32`: whether convolutions may use TF32 tensor cores.
  explicit ConvPlans(bool tf32) : tf32_(tf32) {}
  ConvPlans(const ConvPlans &) = delete;
  ConvPlans &operator=(const ConvPlans &) = delete;
  ~ConvPlans() { clear(); }

  /// Destroys every plan's descriptors (the device does so before it
  /// destroys its cuDNN handle).
  void clear();

  /// The plan of `s`, made with `dnn` the first time it is asked for.
  ConvPlan &get(cudnnHandle_t dnn, const Conv2dShape &s);

private:
  using ConvKey = std::array<int64_t, 16>;

  template <typename Perf>
  const Perf &pick(const Perf *results, int count, const char *direction) const;

  bool tf32_;
  std::map<ConvKey, ConvPlan> plans_;
};

} // namespace hdrt::cuda

#endif // HDRT_CUDA_CONVPLANS_H
