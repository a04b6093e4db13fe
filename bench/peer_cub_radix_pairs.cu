// Peer: CUB's LSD radix sort of key-value pairs, the fastest GPU pair sort (not comparison-based,
// needs second buffers of n keys and n values). The double-buffer form avoids CUB's own copy back
// into the caller's arrays. Stable.
#include <cub/device/device_radix_sort.cuh>

#include "bench/records.hpp"
#include "bench/sorters.hpp"
#include "bitonic/cuda_helpers.hpp"

namespace bitonic::bench {
namespace {

template <class Key, class Value>
class cub_radix_pairs final : public gpu_record_sorter<Key, Value> {
 public:
  void reserve(std::size_t n) override {
    alternate_keys_.reserve(n);
    alternate_values_.reserve(n);
    cub::DoubleBuffer<Key> keys(nullptr, nullptr);
    cub::DoubleBuffer<Value> values(nullptr, nullptr);
    std::size_t bytes = 0;
    BITONIC_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, values,
                                                       cub_item_count(n, "cub_radix")));
    temp_.reserve(bytes);
  }

  sorted_records<Key, Value> sort(Key* d_keys, Value* d_values, std::size_t n,
                                  cudaStream_t stream) override {
    cub::DoubleBuffer<Key> keys(d_keys, alternate_keys_.get());
    cub::DoubleBuffer<Value> values(d_values, alternate_values_.get());
    std::size_t bytes = temp_.size();
    BITONIC_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp_.get(), bytes, keys, values,
                                                       cub_item_count(n, "cub_radix"), 0,
                                                       int(sizeof(Key) * 8), stream));
    return {keys.Current(), values.Current()};
  }

 private:
  device_buffer<Key> alternate_keys_;
  device_buffer<Value> alternate_values_;
  device_buffer<std::byte> temp_;
};

}  // namespace

template <class Key, class Value>
std::unique_ptr<gpu_record_sorter<Key, Value>> make_cub_radix_pairs_sorter() {
  return std::make_unique<cub_radix_pairs<Key, Value>>();
}

#define INSTANTIATE_PAIR(Key, Value) \
  template std::unique_ptr<gpu_record_sorter<Key, Value>> make_cub_radix_pairs_sorter<Key, Value>();
#define INSTANTIATE(Key)               \
  INSTANTIATE_PAIR(Key, std::uint32_t) \
  INSTANTIATE_PAIR(Key, std::uint64_t)
BITONIC_FOR_EACH_KEY(INSTANTIATE)

}  // namespace bitonic::bench
