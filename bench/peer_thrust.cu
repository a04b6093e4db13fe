// Peer: thrust::sort with a comparator functor. A user-defined comparator keeps Thrust off its
// radix-sort fast path, so this is Thrust's merge sort as most comparator users get it,
// including Thrust's own temporary allocation inside the call.
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include "bench/sorters.hpp"
#include "bitonic/order.hpp"

namespace bitonic::bench {
namespace {

template <class Key>
class thrust_cmp final : public gpu_sorter<Key> {
 public:
  const Key* sort(Key* d_keys, std::size_t n, cudaStream_t stream) override {
    // Throws thrust::system_error (a std::runtime_error) on failure.
    thrust::sort(thrust::cuda::par.on(stream), d_keys, d_keys + n, bitonic::ascending_less{});
    return d_keys;
  }
};

}  // namespace

template <class Key>
std::unique_ptr<gpu_sorter<Key>> make_thrust_cmp_sorter() {
  return std::make_unique<thrust_cmp<Key>>();
}

#define INSTANTIATE(Key) template std::unique_ptr<gpu_sorter<Key>> make_thrust_cmp_sorter<Key>();
BITONIC_FOR_EACH_KEY(INSTANTIATE)

}  // namespace bitonic::bench
