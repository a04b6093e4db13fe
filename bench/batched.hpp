// The batched mode of the benchmark (bench --batched): many arrays of one size sorted each on its
// own, a fixed number of keys in all, bitonic::sort_batched and sort_segments against CUB's
// segmented sorts in the same process, each result checked against std::sort of every array.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

namespace bitonic::bench {

struct batched_config {
  std::vector<std::string_view> key_types = {"i32"};  //!< as --type spells them
  std::vector<std::size_t> array_sizes;               //!< one table row each
  std::size_t total_keys = std::size_t{1} << 24;      //!< arrays = total_keys / array size
  unsigned runs = 5;
  std::uint64_t seed = 20261121;
  std::string csv_path;  //!< empty: no CSV
  //! The rows to time (batched_algorithms' names); empty: all of them.
  std::vector<std::string_view> algorithms;
};

//! The batched mode's rows, in table order: bitonic::sort_batched, CUB DeviceSegmentedSort,
//! bitonic::sort_segments, CUB DeviceSegmentedRadixSort, argsort_batched with the sorted keys
//! and sort_batched_pairs.
const std::vector<std::string_view>& batched_algorithms();

//! Runs the batched benchmark on the current CUDA device; returns 0, or 1 when a sort failed or
//! disagreed with std::sort. Throws without a CUDA device or for an unknown key type.
int run_batched(const batched_config& cfg);

//! A peer's sort of `arrays` arrays of `size` keys each at d_keys, ascending; returns where the
//! sorted keys are (d_keys or a buffer of the peer's own).
template <class Key>
class segmented_sorter {
 public:
  virtual ~segmented_sorter() = default;
  //! Allocates what sort() needs (offsets, temporary storage): never inside a timing.
  virtual void reserve(std::size_t arrays, std::size_t size) = 0;
  virtual const Key* sort(Key* d_keys, std::size_t arrays, std::size_t size,
                          cudaStream_t stream) = 0;
};

//! cub::DeviceSegmentedSort::SortKeys (merge sort per segment) and
//! cub::DeviceSegmentedRadixSort::SortKeys, on offsets i * size.
template <class Key>
std::unique_ptr<segmented_sorter<Key>> make_cub_segmented_sorter();
template <class Key>
std::unique_ptr<segmented_sorter<Key>> make_cub_segmented_radix_sorter();

}  // namespace bitonic::bench
