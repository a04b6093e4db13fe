// Peer: thrust::sort_by_key as most of its users call it, without a comparator: Thrust takes its
// radix-sort path for these key types, including its own temporary allocation inside the call.
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include "bench/records.hpp"

namespace bitonic::bench {
namespace {

template <class Key, class Value>
class thrust_pairs final : public gpu_record_sorter<Key, Value> {
 public:
  sorted_records<Key, Value> sort(Key* d_keys, Value* d_values, std::size_t n,
                                  cudaStream_t stream) override {
    // Throws thrust::system_error (a std::runtime_error) on failure.
    thrust::sort_by_key(thrust::cuda::par.on(stream), d_keys, d_keys + n, d_values);
    return {d_keys, d_values};
  }
};

}  // namespace

template <class Key, class Value>
std::unique_ptr<gpu_record_sorter<Key, Value>> make_thrust_pairs_sorter() {
  return std::make_unique<thrust_pairs<Key, Value>>();
}

#define INSTANTIATE_PAIR(Key, Value) \
  template std::unique_ptr<gpu_record_sorter<Key, Value>> make_thrust_pairs_sorter<Key, Value>();
#define INSTANTIATE(Key)               \
  INSTANTIATE_PAIR(Key, std::uint32_t) \
  INSTANTIATE_PAIR(Key, std::uint64_t)
BITONIC_FOR_EACH_KEY(INSTANTIATE)

}  // namespace bitonic::bench
