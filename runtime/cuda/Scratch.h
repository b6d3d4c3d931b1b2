//===- Scratch.h - reused device memory -------------------------*- C++ -*-===//

#ifndef HDRT_CUDA_SCRATCH_H
#define HDRT_CUDA_SCRATCH_H

#include "Check.h"

#include "hdrt/Device.h"

namespace hdrt::cuda {

/// Device memory that grows to the largest request and is then reused:
/// every user runs on the compute stream, in order. Its size counts in the
/// device's memory through `allocated` and `released`.
class Scratch {
public:
  explicit Scratch(MemoryCounter &counter) : counter_(counter) {}
  ~Scratch() {
    if (data_)
      cudaFree(data_);
  }
  void *get(size_t bytes) {
    if (bytes > size_) {
      if (data_) {
        HDRT_CUDA_CHECK(cudaFree(data_));
        counter_.released(size_);
      }
      data_ = nullptr;
      size_ = 0; // stays consistent if the allocation below throws
      HDRT_CUDA_CHECK(cudaMalloc(&data_, bytes));
      size_ = bytes;
      counter_.allocated(bytes);
    }
    return data_;
  }

private:
  MemoryCounter &counter_;
  void *data_ = nullptr;
  size_t size_ = 0;
};

} // namespace hdrt::cuda

#endif // HDRT_CUDA_SCRATCH_H
