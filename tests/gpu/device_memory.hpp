// Device arrays of keys for the GPU tests, on the public bitonic/cuda_helpers.hpp: every CUDA call
// is checked, and a failing one throws bitonic::error, which gtest reports as a failure of the
// running test.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"

namespace bitonic::test {

//! `size` keys of cudaMalloc'd memory (none when size is 0, so get() is null then), with copies
//! from and to host vectors.
template <class Key>
class device_array {
 public:
  explicit device_array(std::size_t size) : keys_(size) {}

  Key* get() const { return keys_.get(); }
  std::size_t size() const { return keys_.size(); }

  //! Copies `keys` to the front of the array; complete when this returns. The copy is ordered on
  //! `stream`, so that work later enqueued there sees it (a plain cudaMemcpy from pageable
  //! memory may return before the data has landed, and non-blocking streams do not wait for it).
  void upload(const std::vector<Key>& keys, cudaStream_t stream = nullptr) {
    if (keys.size() > size()) throw std::length_error("device_array::upload: too many keys");
    if (keys.empty()) return;
    BITONIC_CUDA_CHECK(cudaMemcpyAsync(get(), keys.data(), keys.size() * sizeof(Key),
                                       cudaMemcpyHostToDevice, stream));
    BITONIC_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  //! All keys, after the work enqueued on `stream` so far.
  std::vector<Key> download(cudaStream_t stream = nullptr) const {
    std::vector<Key> keys(size());
    if (!keys.empty()) {
      BITONIC_CUDA_CHECK(cudaMemcpyAsync(keys.data(), get(), keys.size() * sizeof(Key),
                                         cudaMemcpyDeviceToHost, stream));
    }
    BITONIC_CUDA_CHECK(cudaStreamSynchronize(stream));
    return keys;
  }

 private:
  device_buffer<Key> keys_;
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
