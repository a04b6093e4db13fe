// Device memory and streams for the GPU tests, with every CUDA call checked: a failing call
// throws std::runtime_error, which gtest reports as a failure of the running test.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "bitonic/bitonic.hpp"

namespace bitonic::test {

inline void cuda_ok(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(call) + " failed: " + cudaGetErrorString(status));
  }
}
#define TEST_CUDA_OK(call) ::bitonic::test::cuda_ok((call), #call)

//! `size` keys of cudaMalloc'd memory (none when size is 0, so get() is null then).
template <class Key>
class device_array {
 public:
  explicit device_array(std::size_t size) : size_(size) {
    if (size > 0) TEST_CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&data_), size * sizeof(Key)));
  }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  ~device_array() {
    if (data_ != nullptr) cudaFree(data_);
  }

  Key* get() const { return data_; }
  std::size_t size() const { return size_; }

  //! Copies `keys` to the front of the array; complete when this returns. The copy is ordered on
  //! `stream`, so that work later enqueued there sees it (a plain cudaMemcpy from pageable
  //! memory may return before the data has landed, and non-blocking streams do not wait for it).
  void upload(const std::vector<Key>& keys, cudaStream_t stream = nullptr) {
    if (keys.size() > size_) throw std::length_error("device_array::upload: too many keys");
    if (keys.empty()) return;
    TEST_CUDA_OK(cudaMemcpyAsync(data_, keys.data(), keys.size() * sizeof(Key),
                                 cudaMemcpyHostToDevice, stream));
    TEST_CUDA_OK(cudaStreamSynchronize(stream));
  }

  //! All keys, after the work enqueued on `stream` so far.
  std::vector<Key> download(cudaStream_t stream = nullptr) const {
    std::vector<Key> keys(size_);
    if (size_ > 0) {
      TEST_CUDA_OK(
          cudaMemcpyAsync(keys.data(), data_, size_ * sizeof(Key), cudaMemcpyDeviceToHost, stream));
    }
    TEST_CUDA_OK(cudaStreamSynchronize(stream));
    return keys;
  }

 private:
  Key* data_ = nullptr;
  std::size_t size_ = 0;
};

//! A stream that does not synchronise with the legacy default stream.
class stream {
 public:
  stream() { TEST_CUDA_OK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  ~stream() { cudaStreamDestroy(stream_); }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

//! Sorts a copy of `input` on the device in `keys` (large enough) and returns the result.
template <class Key>
std::vector<Key> sort_on_device(device_array<Key>& keys, const std::vector<Key>& input,
                                const options& opt) {
  keys.upload(input, opt.stream);
  bitonic::sort(keys.get(), input.size(), opt);
  std::vector<Key> result = keys.download(opt.stream);
  result.resize(input.size());
  return result;
}

}  // namespace bitonic::test
