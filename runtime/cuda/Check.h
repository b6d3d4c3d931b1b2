//===- Check.h - checked CUDA, cuDNN, cuBLAS and NCCL calls -----*- C++ -*-===//
//
// Every library call of the CUDA device goes through HDRT_CUDA_CHECK: a
// failure throws a DeviceError naming the call (the executor adds the
// layer).
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_CUDA_CHECK_H
#define HDRT_CUDA_CHECK_H

#include "hdrt/Device.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <nccl.h>

#include <string>

namespace hdrt::cuda {

[[noreturn]] inline void fail(const char *call, const char *why) {
  // `call` is the checked expression; its function name is enough.
  std::string name(call);
  if (size_t paren = name.find('('); paren != std::string::npos)
    name.resize(paren);
  throw DeviceError(name + " failed: " + why);
}

inline void check(cudaError_t e, const char *call) {
  if (e != cudaSuccess)
    fail(call, cudaGetErrorString(e));
}
inline void check(cudnnStatus_t e, const char *call) {
  if (e != CUDNN_STATUS_SUCCESS)
    fail(call, cudnnGetErrorString(e));
}
inline void check(cublasStatus_t e, const char *call) {
  if (e != CUBLAS_STATUS_SUCCESS)
    fail(call, cublasGetStatusString(e));
}
inline void check(ncclResult_t e, const char *call) {
  if (e != ncclSuccess)
    fail(call, ncclGetErrorString(e));
}

#define HDRT_CUDA_CHECK(call) ::hdrt::cuda::check((call), #call)

} // namespace hdrt::cuda

#endif // HDRT_CUDA_CHECK_H
