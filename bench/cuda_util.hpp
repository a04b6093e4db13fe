// Checked CUDA runtime calls and small RAII owners for the benchmark. Every call is checked: a
// failure throws with the call's text, so that no failed operation is ever timed silently.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace bitonic::bench {

class cuda_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void check_cuda(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw cuda_error(std::string(call) + " failed: " + cudaGetErrorName(status) + ": " +
                     cudaGetErrorString(status));
  }
}

#define BENCH_CUDA_CHECK(call) ::bitonic::bench::check_cuda((call), #call)

//! The name of the current CUDA device ("NVIDIA H100 80GB HBM3").
inline std::string current_device_name() {
  int device = 0;
  BENCH_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  BENCH_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return prop.name;
}

//! A non-blocking stream, so that nothing else in the process serialises with the timed work.
class stream {
 public:
  stream() { BENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~stream() { cudaStreamDestroy(s_); }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  operator cudaStream_t() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class event {
 public:
  event() { BENCH_CUDA_CHECK(cudaEventCreate(&e_)); }
  ~event() { cudaEventDestroy(e_); }
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  operator cudaEvent_t() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

//! Device memory that only grows: one allocation serves every size of a run.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  ~device_buffer() { release(); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  //! Room for at least `count` elements; the contents are not kept when it grows.
  T* reserve(std::size_t count) {
    if (count > capacity_) {
      release();
      void* p = nullptr;
      BENCH_CUDA_CHECK(cudaMalloc(&p, count * sizeof(T)));
      ptr_ = static_cast<T*>(p);
      capacity_ = count;
    }
    return ptr_;
  }
  T* get() const { return ptr_; }
  std::size_t capacity() const { return capacity_; }

 private:
  void release() {
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = nullptr;
    capacity_ = 0;
  }
  T* ptr_ = nullptr;
  std::size_t capacity_ = 0;
};

}  // namespace bitonic::bench
