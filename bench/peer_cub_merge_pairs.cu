// Peer: CUB's merge sort of key-value pairs with a comparator, the comparison-based pair sort a
// bitonic network has to beat. Sorts in place (not stable); its temporary storage is allocated
// outside the timing.
#include <cub/device/device_merge_sort.cuh>

#include "bench/records.hpp"
#include "bench/sorters.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "bitonic/order.hpp"

namespace bitonic::bench {
namespace {

template <class Key, class Value>
class cub_merge_pairs final : public gpu_record_sorter<Key, Value> {
 public:
  void reserve(std::size_t n) override {
    std::size_t bytes = 0;
    BITONIC_CUDA_CHECK(cub::DeviceMergeSort::SortPairs(
        nullptr, bytes, static_cast<Key*>(nullptr), static_cast<Value*>(nullptr),
        cub_item_count(n, "cub_merge"), bitonic::ascending_less{}));
    temp_.reserve(bytes);
  }

  sorted_records<Key, Value> sort(Key* d_keys, Value* d_values, std::size_t n,
                                  cudaStream_t stream) override {
    std::size_t bytes = temp_.size();
    BITONIC_CUDA_CHECK(cub::DeviceMergeSort::SortPairs(temp_.get(), bytes, d_keys, d_values,
                                                       cub_item_count(n, "cub_merge"),
                                                       bitonic::ascending_less{}, stream));
    return {d_keys, d_values};
  }

 private:
  device_buffer<std::byte> temp_;
};

}  // namespace

template <class Key, class Value>
std::unique_ptr<gpu_record_sorter<Key, Value>> make_cub_merge_pairs_sorter() {
  return std::make_unique<cub_merge_pairs<Key, Value>>();
}

#define INSTANTIATE_PAIR(Key, Value) \
  template std::unique_ptr<gpu_record_sorter<Key, Value>> make_cub_merge_pairs_sorter<Key, Value>();
#define INSTANTIATE(Key)               \
  INSTANTIATE_PAIR(Key, std::uint32_t) \
  INSTANTIATE_PAIR(Key, std::uint64_t)
BITONIC_FOR_EACH_KEY(INSTANTIATE)

}  // namespace bitonic::bench
