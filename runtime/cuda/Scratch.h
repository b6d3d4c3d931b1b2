//===- Scratch.h - reused device memory -------------------------*- C++ -*-===//

#ifndef HDRT_CUDA_SCRATCH_H
#define HDRT_CUDA_SCRATCH_H

#include "Check.h"

#include "hdrt/Device.h"

namespace hdrt::cuda {

/// Device memory that grows to the largest request and is then reused:
/// every user runs on `stream`, in order. It grows with the stream-ordered
/// allocator: cudaFree and cudaMalloc would wait for the whole device, and
/// a wait for a device whose NCCL kernel waits for another rank, which may
/// itself be waiting in such a call, can deadlock a job. Its size counts in
/// the device's memory through `allocated` and `released`.
class Scratch {
public:
  explicit Scratch(MemoryCounter &counter) : counter_(counter) {}
  ~Scratch() {
    if (data_)
      cudaFree(data_);
  }
  void *get(size_t bytes, cudaStream_t stream) {
    if (bytes > size_) {
      if (data_) {
        HDRT_CUDA_CHECK(cudaFreeAsync(data_, stream));
        counter_.released(size_);
      }
      data_ = nullptr;
      size_ = 0; // stays consistent if the allocation below throws
      HDRT_CUDA_CHECK(cudaMallocAsync(&data_, bytes, stream));
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
