// Peer: CUB's LSD radix sort, the fastest GPU sort for plain keys (not comparison-based, needs a
// second buffer of n keys). The double-buffer form avoids CUB's own copy back into d_keys.
#include <cub/device/device_radix_sort.cuh>

#include "bench/sorters.hpp"
#include "bitonic/cuda_helpers.hpp"

namespace bitonic::bench {
namespace {

template <class Key>
class cub_radix final : public gpu_sorter<Key> {
 public:
  void reserve(std::size_t n) override {
    alternate_.reserve(n);
    cub::DoubleBuffer<Key> keys(nullptr, nullptr);
    std::size_t bytes = 0;
    BITONIC_CUDA_CHECK(
        cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, cub_item_count(n, "cub_radix")));
    temp_.reserve(bytes);
  }

  const Key* sort(Key* d_keys, std::size_t n, cudaStream_t stream) override {
    cub::DoubleBuffer<Key> keys(d_keys, alternate_.get());
    std::size_t bytes = temp_.size();
    BITONIC_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(
        temp_.get(), bytes, keys, cub_item_count(n, "cub_radix"), 0, int(sizeof(Key) * 8), stream));
    return keys.Current();
  }

 private:
  device_buffer<Key> alternate_;
  device_buffer<std::byte> temp_;
};

}  // namespace

template <class Key>
std::unique_ptr<gpu_sorter<Key>> make_cub_radix_sorter() {
  return std::make_unique<cub_radix<Key>>();
}

#define INSTANTIATE(Key) template std::unique_ptr<gpu_sorter<Key>> make_cub_radix_sorter<Key>();
BITONIC_FOR_EACH_KEY(INSTANTIATE)

}  // namespace bitonic::bench
