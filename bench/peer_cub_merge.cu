// Peer: CUB's merge sort with a comparator, the comparison-based sort a bitonic network has to
// beat. Sorts in place; its temporary storage (about n keys) is allocated outside the timing.
#include <cub/device/device_merge_sort.cuh>

#include "bench/sorters.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "bitonic/order.hpp"

namespace bitonic::bench {
namespace {

template <class Key>
class cub_merge final : public gpu_sorter<Key> {
 public:
  void reserve(std::size_t n) override {
    std::size_t bytes = 0;
    BITONIC_CUDA_CHECK(cub::DeviceMergeSort::SortKeys(nullptr, bytes, static_cast<Key*>(nullptr),
                                                      cub_item_count(n, "cub_merge"),
                                                      bitonic::ascending_less{}));
    temp_.reserve(bytes);
  }

  const Key* sort(Key* d_keys, std::size_t n, cudaStream_t stream) override {
    std::size_t bytes = temp_.size();
    BITONIC_CUDA_CHECK(cub::DeviceMergeSort::SortKeys(temp_.get(), bytes, d_keys,
                                                      cub_item_count(n, "cub_merge"),
                                                      bitonic::ascending_less{}, stream));
    return d_keys;
  }

 private:
  device_buffer<std::byte> temp_;
};

}  // namespace

template <class Key>
std::unique_ptr<gpu_sorter<Key>> make_cub_merge_sorter() {
  return std::make_unique<cub_merge<Key>>();
}

#define INSTANTIATE(Key) template std::unique_ptr<gpu_sorter<Key>> make_cub_merge_sorter<Key>();
BITONIC_FOR_EACH_KEY(INSTANTIATE)

}  // namespace bitonic::bench
