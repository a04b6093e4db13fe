// The library's variants as GPU sorters, the host peers, and the lookup from an algorithm to the
// function that times it.
#include "bench/sorters.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdlib>

#include "bitonic/cuda_helpers.hpp"
#include "bitonic/order.hpp"

namespace bitonic::bench {
namespace {

template <class Key>
class bitonic_sorter final : public gpu_sorter<Key> {
 public:
  bitonic_sorter(bitonic::algorithm algo, bool workspace, bool out_of_place)
      : algo_(algo), workspace_(workspace), out_of_place_(out_of_place) {}
  void reserve(std::size_t n) override {
    if (workspace_) workspace_memory_.reserve(bitonic::workspace_bytes<Key>(n, {.algo = algo_}));
    if (out_of_place_) output_.reserve(n);
  }
  const Key* sort(Key* d_keys, std::size_t n, cudaStream_t stream) override {
    bitonic::options opt{.algo = algo_, .stream = stream};
    if (workspace_) {
      opt.workspace = workspace_memory_.get();
      opt.workspace_bytes = workspace_memory_.size();
    }
    if (out_of_place_) {
      bitonic::sort(static_cast<const Key*>(d_keys), output_.get(), n, opt);
      return output_.get();
    }
    bitonic::sort(d_keys, n, opt);
    return d_keys;
  }

 private:
  bitonic::algorithm algo_;
  bool workspace_, out_of_place_;
  device_buffer<std::byte> workspace_memory_;  // grows to the largest workspace_bytes asked
  device_buffer<Key> output_;                  // the out-of-place sort's d_out
};

// qsort's three-way comparison in the library's total order (NaN last), so that its result is
// comparable with every other sort's.
template <class Key>
int qsort_compare(const void* a, const void* b) {
  const Key x = *static_cast<const Key*>(a);
  const Key y = *static_cast<const Key*>(b);
  const bitonic::ascending_less less;
  return int(less(y, x)) - int(less(x, y));
}

}  // namespace

template <class Key>
std::unique_ptr<gpu_sorter<Key>> make_bitonic_sorter(bitonic::algorithm algo, bool workspace,
                                                     bool out_of_place) {
  return std::make_unique<bitonic_sorter<Key>>(algo, workspace, out_of_place);
}

template <class Key>
std::unique_ptr<gpu_sorter<Key>> make_gpu_sorter(const algorithm_id& algo) {
  if (algo.kind == algorithm_kind::variant)
    return make_bitonic_sorter<Key>(algo.variant, algo.workspace, algo.out_of_place);
  if (algo.name == "cub_radix") return make_cub_radix_sorter<Key>();
  if (algo.name == "cub_merge") return make_cub_merge_sorter<Key>();
  if (algo.name == "thrust_cmp") return make_thrust_cmp_sorter<Key>();
  return nullptr;
}

template <class Key>
void std_sort(Key* keys, std::size_t n) {
  std::sort(keys, keys + n, bitonic::ascending_less{});
}

template <class Key>
void c_qsort(Key* keys, std::size_t n) {
  std::qsort(keys, n, sizeof(Key), qsort_compare<Key>);
}

template <class Key>
void host_sort(Key* keys, std::size_t n) {
  bitonic::sort_host(keys, n);
}

template <class Key>
cpu_sort_fn<Key> cpu_sorter(const algorithm_id& algo) {
  if (algo.name == "std_sort") return std_sort<Key>;
  if (algo.name == "qsort") return c_qsort<Key>;
  if (algo.name == "sort_host") return host_sort<Key>;
  return nullptr;
}

#define INSTANTIATE(Key)                                                                       \
  template std::unique_ptr<gpu_sorter<Key>> make_bitonic_sorter<Key>(bitonic::algorithm, bool, \
                                                                     bool);                    \
  template std::unique_ptr<gpu_sorter<Key>> make_gpu_sorter<Key>(const algorithm_id&);         \
  template void std_sort<Key>(Key*, std::size_t);                                              \
  template void c_qsort<Key>(Key*, std::size_t);                                               \
  template cpu_sort_fn<Key> cpu_sorter<Key>(const algorithm_id&);
BITONIC_FOR_EACH_KEY(INSTANTIATE)

}  // namespace bitonic::bench
