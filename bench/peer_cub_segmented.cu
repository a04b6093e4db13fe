// Peers of the batched mode: CUB's segmented sorts. DeviceSegmentedSort picks a merge sort per
// segment size class (warp, block, or a device-wide pass for large ones); DeviceSegmentedRadixSort
// runs a block-wide radix sort per segment. Both take segment offsets (here i * size, prepared
// outside the timing) and write into a second buffer (the double-buffer forms).
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "bench/batched.hpp"
#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"

namespace bitonic::bench {
namespace {

template <class Key, bool Radix>
class cub_segmented final : public segmented_sorter<Key> {
 public:
  void reserve(std::size_t arrays, std::size_t size) override {
    if (arrays * size > std::size_t(std::numeric_limits<int>::max()) ||
        arrays >= std::size_t(std::numeric_limits<int>::max())) {
      throw std::length_error("CUB's segmented sorts count keys and segments in int");
    }
    std::vector<int> offsets(arrays + 1);
    for (std::size_t i = 0; i <= arrays; ++i)
      offsets[i] = int(i * size);
    offsets_.reserve(offsets.size());
    BITONIC_CUDA_CHECK(cudaMemcpy(offsets_.get(), offsets.data(), offsets.size() * sizeof(int),
                                  cudaMemcpyHostToDevice));
    alternate_.reserve(arrays * size);
    cub::DoubleBuffer<Key> keys(nullptr, nullptr);
    std::size_t bytes = 0;
    BITONIC_CUDA_CHECK(call(nullptr, bytes, keys, arrays, size, nullptr));
    temp_.reserve(bytes);
  }

  const Key* sort(Key* d_keys, std::size_t arrays, std::size_t size, cudaStream_t stream) override {
    cub::DoubleBuffer<Key> keys(d_keys, alternate_.get());
    std::size_t bytes = temp_.size();
    BITONIC_CUDA_CHECK(call(temp_.get(), bytes, keys, arrays, size, stream));
    return keys.Current();
  }

 private:
  cudaError_t call(void* temp, std::size_t& bytes, cub::DoubleBuffer<Key>& keys, std::size_t arrays,
                   std::size_t size, cudaStream_t stream) {
    const int* begin = offsets_.get();
    if constexpr (Radix) {
      return cub::DeviceSegmentedRadixSort::SortKeys(temp, bytes, keys, int(arrays * size),
                                                     int(arrays), begin, begin + 1, 0,
                                                     int(sizeof(Key) * 8), stream);
    } else {
      return cub::DeviceSegmentedSort::SortKeys(temp, bytes, keys, int(arrays * size), int(arrays),
                                                begin, begin + 1, stream);
    }
  }

  device_buffer<int> offsets_;
  device_buffer<Key> alternate_;
  device_buffer<std::byte> temp_;
};

}  // namespace

template <class Key>
std::unique_ptr<segmented_sorter<Key>> make_cub_segmented_sorter() {
  return std::make_unique<cub_segmented<Key, false>>();
}
template <class Key>
std::unique_ptr<segmented_sorter<Key>> make_cub_segmented_radix_sorter() {
  return std::make_unique<cub_segmented<Key, true>>();
}

#define INSTANTIATE(Key)                                                            \
  template std::unique_ptr<segmented_sorter<Key>> make_cub_segmented_sorter<Key>(); \
  template std::unique_ptr<segmented_sorter<Key>> make_cub_segmented_radix_sorter<Key>();
BITONIC_FOR_EACH_KEY(INSTANTIATE)

}  // namespace bitonic::bench
