// bitonic/cuda_helpers.hpp — checked CUDA runtime calls and RAII owners of a stream, an event and
// device memory. The library, its benchmark and its tests share this one copy, so that a CUDA
// failure reads the same wherever it happens; applications may use it too.
//
// Plain C++ header, like bitonic.hpp: usable from .cpp files compiled by any C++20 compiler.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <limits>
#include <string>
#include <utility>

#include "bitonic/bitonic.hpp"

namespace bitonic {

//! Throws bitonic::error "bitonic: <call> failed: <error name>: <error string>".
[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call) {
  throw error(std::string("bitonic: ") + call + " failed: " + cudaGetErrorName(status) + ": " +
              cudaGetErrorString(status));
}

//! Throws bitonic::error naming `call` unless `status` is cudaSuccess.
inline void check_cuda(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw_cuda_error(status, call);
}

}  // namespace bitonic

//! Checks a CUDA runtime call: a failure throws bitonic::error naming the call as written.
#define BITONIC_CUDA_CHECK(call) ::bitonic::check_cuda((call), #call)

namespace bitonic {

//! The name of the current CUDA device ("NVIDIA H100 80GB HBM3").
inline std::string current_device_name() {
  int device = 0;
  BITONIC_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  BITONIC_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return prop.name;
}

//! A stream of the current device that does not synchronise with the legacy default stream, so
//! that work on it is not serialised with unrelated work of the process.
class cuda_stream {
 public:
  cuda_stream() { BITONIC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~cuda_stream() { cudaStreamDestroy(stream_); }
  cuda_stream(const cuda_stream&) = delete;
  cuda_stream& operator=(const cuda_stream&) = delete;

  cudaStream_t get() const noexcept { return stream_; }
  operator cudaStream_t() const noexcept { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

//! An event with timing enabled (cudaEventElapsedTime works on it).
class cuda_event {
 public:
  cuda_event() { BITONIC_CUDA_CHECK(cudaEventCreate(&event_)); }
  ~cuda_event() { cudaEventDestroy(event_); }
  cuda_event(const cuda_event&) = delete;
  cuda_event& operator=(const cuda_event&) = delete;

  cudaEvent_t get() const noexcept { return event_; }
  operator cudaEvent_t() const noexcept { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

//! `size()` elements of cudaMalloc'd memory on the current device, freed when destroyed.
template <class T>
class device_buffer {
 public:
  //! Allocates `count` elements; nothing for 0 (get() is null then).
  explicit device_buffer(std::size_t count = 0) { reserve(count); }
  ~device_buffer() { release(); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  //! Room for at least `count` elements. Only grows, so that one allocation serves every smaller
  //! size after it; when it grows the contents are not kept (the old memory is freed first, so
  //! that both never need to fit at once).
  T* reserve(std::size_t count) {
    if (count <= size_) return data_;
    if (count > std::numeric_limits<std::size_t>::max() / sizeof(T)) {
      throw error("bitonic: device_buffer: " + std::to_string(count) + " elements of " +
                  std::to_string(sizeof(T)) + " bytes exceed the address space");
    }
    release();
    void* p = nullptr;
    BITONIC_CUDA_CHECK(cudaMalloc(&p, count * sizeof(T)));
    data_ = static_cast<T*>(p);
    size_ = count;
    return data_;
  }

  T* get() const noexcept { return data_; }
  //! Elements allocated.
  std::size_t size() const noexcept { return size_; }

 private:
  void release() noexcept {
    if (data_ != nullptr) cudaFree(data_);
    data_ = nullptr;
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace bitonic
