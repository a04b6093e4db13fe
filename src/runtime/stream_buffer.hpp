// Device memory allocated and freed in stream order, for the sorts' scratch and sort_host.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "bitonic/cuda_helpers.hpp"

namespace bitonic::runtime {

//! A stream-ordered device buffer, freed (stream-ordered) when it goes out of scope.
template <class T>
class stream_buffer {
 public:
  stream_buffer() = default;
  stream_buffer(const stream_buffer&) = delete;
  stream_buffer& operator=(const stream_buffer&) = delete;
  ~stream_buffer() {
    if (data_ != nullptr) cudaFreeAsync(data_, stream_);
  }

  //! Allocates `count` elements on `stream`; on failure throws bitonic::error naming `what`
  //! (nothing has touched the caller's data yet).
  void allocate(std::size_t count, cudaStream_t stream, const char* what) {
    if (!try_allocate(count, stream, what)) throw_cuda_error(cudaErrorMemoryAllocation, what);
  }
  //! As allocate, but from `pool` when it is not null, and returns false (nothing allocated, no
  //! error left behind) when the device lacks the memory; throws on any other failure.
  bool try_allocate(std::size_t count, cudaStream_t stream, const char* what,
                    cudaMemPool_t pool = nullptr) {
    stream_ = stream;
    void** const at = reinterpret_cast<void**>(&data_);
    const std::size_t bytes = count * sizeof(T);
    const cudaError_t status = pool != nullptr ? cudaMallocFromPoolAsync(at, bytes, pool, stream)
                                               : cudaMallocAsync(at, bytes, stream);
    if (status == cudaSuccess) return true;
    cudaGetLastError();  // an allocation failure is not sticky; clear it
    data_ = nullptr;
    if (status == cudaErrorMemoryAllocation) return false;
    throw_cuda_error(status, what);
  }
  T* get() const { return data_; }

 private:
  T* data_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

}  // namespace bitonic::runtime
