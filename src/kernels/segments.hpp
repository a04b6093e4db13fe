// The segmented sorts' kernels (segment_bins.cuh, segment_tiles.cuh) as plain functions: compiled
// once, in segments.cu, per key size and offset size, not per key type, since they sort words.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernels/rows.hpp"
#include "kernels/tuning.hpp"
#include "network/network.hpp"

namespace bitonic::kernels::segments {

using network::index_t;
using counter_t = unsigned long long;  //!< what CUDA's 64-bit atomics take

//! Classes of segments by length: 0 for fewer than 2 keys (nothing to sort), c = ceil(log2 m) for
//! m keys up to a tile (padded to 2^c in the tile), `classes` for longer ones (sorted apart).
inline constexpr unsigned classes = tuning::segment_tiles::tile_log2 + 1;

//! The class of a segment of `length` keys; with `singles`, one key counts as two (argsort
//! writes its index 0).
BITONIC_HOST_DEVICE constexpr unsigned segment_class(std::uint64_t length, bool singles) {
  if (length == 1 && singles) return 1;
  if (length < 2) return 0;
  if (length > tuning::segment_tiles::tile) return classes;
  unsigned c = 1;
  while ((std::uint64_t{1} << c) < length)
    ++c;
  return c;
}

//! Where each class's blocks and bins begin (entry `classes`: the totals); the plan
//! (plan/segments_plan.hpp) computes it. A kernel parameter, so plain arrays.
struct tile_map {
  std::uint64_t first_segment[classes + 1];
  std::uint64_t first_block[classes + 1];
};

//! What count_kernel finds, in device memory (zero it first, first_bad all ones).
struct counters {
  counter_t counts[classes];   //!< segments a class
  counter_t cursors[classes];  //!< bin_kernel's next free bin a class
  counter_t long_count;        //!< segments longer than a tile
  counter_t first_bad;         //!< the first segment whose offsets decrease
};

//! A segment longer than a tile: its keys are [begin, end).
struct long_segment {
  std::uint64_t begin, end;
};

//! The bins: each short segment's first key and length, class after class (plan order).
struct bins {
  std::uint64_t* begin;
  std::uint32_t* length;
};

//! The segments' offsets in device memory: `bytes` (4 or 8) each. The keys arrays of the call
//! start at offset `origin` (the first offset where a call's keys are words of a part of the
//! caller's keys, 0 otherwise): segment i is elements [at[i] - origin, at[i + 1] - origin).
struct offsets_view {
  const void* at;
  std::size_t bytes;
  std::uint64_t origin;
};

//! Counts the segments of each class into *out and lists up to long_capacity long ones in
//! long_list, on `stream`.
void count(const offsets_view& offsets, index_t segments, bool singles, counters* out,
           long_segment* long_list, index_t long_capacity, cudaStream_t stream);

//! Writes every short segment into its class's bins (cursors zeroed first), on `stream`.
void bin(const offsets_view& offsets, index_t segments, bool singles, const tile_map& map,
         counters* cursors, bins out, cudaStream_t stream);

//! The segment-tile launch: keys of key_bytes (4 or 8) read from `keys` and sorted within each
//! binned segment. Keys only (positions false): written back to out_keys (= keys). With
//! positions, each segment is sorted stably by (class word, position); then the sorted keys
//! (gathered bit for bit) go to out_keys, the values (value_bytes 4 or 8) are gathered in place
//! and the positions within the segment go to indices (index_bytes 4 or 8), each unless null.
struct tile_call {
  const void* keys = nullptr;
  void* out_keys = nullptr;
  void* values = nullptr;
  void* indices = nullptr;
  std::size_t key_bytes = 4, value_bytes = 0, index_bytes = 0;
  bool positions = false;
  rows::word_map map = rows::word_map::unsigned_bits;
  bool descending = false;
  bins in{};
};

//! Copies each of the `count` segments of `list` (elements of `bytes`: 4 or 8) from `segments`
//! into a row of 2^row_log2 elements at `rows`, the rest of the row set to `pad`'s bits
//! (to_rows), or back from its row into its segment (not to_rows), on `stream`.
void copy_rows(void* segments, void* rows, std::size_t bytes, const long_segment* list,
               index_t count, unsigned row_log2, std::uint64_t pad, bool to_rows,
               cudaStream_t stream);

//! Loads the kernels a call with these sizes launches (and sets their attributes) without
//! launching any, so that a kernel that cannot load fails the call before a key has moved.
void load(std::size_t key_bytes, bool positions, std::size_t offset_bytes,
          std::size_t second_bytes);

//! Sorts the binned segments (map.first_block[classes] blocks), on `stream`.
void sort_tiles(const tile_call& call, const tile_map& map, cudaStream_t stream);

}  // namespace bitonic::kernels::segments
