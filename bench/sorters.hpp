// Everything the benchmark times, behind one interface per place the keys live: the library's
// variants and the CUB/Thrust peers on the device, std::sort and qsort on the host. Each GPU peer
// lives in its own .cu file (they are slow to compile); all are instantiated for the six key types
// of the library.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include "bench/algorithms.hpp"
#include "bitonic/bitonic.hpp"

namespace bitonic::bench {

//! An ascending sort of device-resident keys.
template <class Key>
class gpu_sorter {
 public:
  virtual ~gpu_sorter() = default;
  //! Allocates what sort() needs for up to `n` keys (temporary storage): never inside a timing.
  virtual void reserve(std::size_t n) { (void)n; }
  //! Enqueues the sort of d_keys[0, n) on `stream` and returns where the sorted keys will be:
  //! d_keys, or a buffer of the sorter's own for sorts that ping-pong between two buffers.
  virtual const Key* sort(Key* d_keys, std::size_t n, cudaStream_t stream) = 0;
};

//! bitonic::sort with `algo`; with `workspace`, on a workspace that reserve() allocates; with
//! `out_of_place`, from the keys into a buffer that reserve() allocates (sort(d_in, d_out, n)).
template <class Key>
std::unique_ptr<gpu_sorter<Key>> make_bitonic_sorter(bitonic::algorithm algo,
                                                     bool workspace = false,
                                                     bool out_of_place = false);
template <class Key>
std::unique_ptr<gpu_sorter<Key>> make_cub_radix_sorter();
template <class Key>
std::unique_ptr<gpu_sorter<Key>> make_cub_merge_sorter();
template <class Key>
std::unique_ptr<gpu_sorter<Key>> make_thrust_cmp_sorter();

//! The GPU sorter of a variant or GPU peer (null for a CPU peer).
template <class Key>
std::unique_ptr<gpu_sorter<Key>> make_gpu_sorter(const algorithm_id& algo);

//! A host sort of keys[0, n) in place, ascending in the library's order (NaN last).
template <class Key>
using cpu_sort_fn = void (*)(Key* keys, std::size_t n);

template <class Key>
void std_sort(Key* keys, std::size_t n);
template <class Key>
void c_qsort(Key* keys, std::size_t n);

//! The host-to-host sort of a CPU peer or of sort_host (null for anything else).
template <class Key>
cpu_sort_fn<Key> cpu_sorter(const algorithm_id& algo);

//! `n` as the int item count CUB takes (32-bit offsets, as CUB users normally pass).
inline int cub_item_count(std::size_t n, const char* peer) {
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw std::length_error(std::string(peer) + ": " + std::to_string(n) + " keys exceed int");
  }
  return static_cast<int>(n);
}

}  // namespace bitonic::bench
