// The segmented sorts' own steps, for the entry points of 1- and 2-byte keys
// (api/small_segments.cpp), which check the caller's arrays, widen the keys of the offsets' span
// into words and sort those with the 4- or 8-byte segmented sort: one code path, no segment kernels
// per small key type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "bitonic/bitonic.hpp"

namespace bitonic::api {

//! A segmented call's arrays with their types erased. Segment i is elements [offsets[i] -
//! origin, offsets[i + 1] - origin) of keys, values and indices (origin 0 for the caller's
//! arrays; the span's first offset for words of the span's keys).
struct segment_arrays {
  const void* keys = nullptr;
  void* values = nullptr;
  void* indices = nullptr;
  std::size_t key_bytes = 0, value_bytes = 0, index_bytes = 0;
  const void* offsets = nullptr;
  std::size_t offset_bytes = 0;
  std::size_t num_segments = 0;
  std::uint64_t origin = 0;
};

//! The keys the segments cover: [d_offsets[0], d_offsets[num_segments]).
struct segment_span {
  std::uint64_t first = 0, last = 0;
  std::uint64_t keys() const { return last - first; }
};

//! The checks of a segmented call on the caller's arrays (origin 0) before anything is enqueued,
//! then its first synchronisation (the first and last offsets) and the checks of its arrays over
//! them. nullopt when there are no segments. Throws bitonic::error as sort_segments does.
std::optional<segment_span> check_segments(const segment_arrays& a, const options& opt,
                                           const char* caller);

//! The segmented sort of Word keys (std::uint32_t or std::uint64_t, as unsigned integers in
//! opt.direction) at `words`, which stand for the span's keys (words[i] for key span.first + i),
//! after check_segments: a.keys is `words`, a.origin span.first, a.values and a.indices (one of
//! them at most) point at the span's first element. Keys only and pairs: the words and values are
//! sorted in place; indices: argsort_segments' into a.indices, words untouched. The scratch of
//! segments_workspace_bytes<Word>(span.keys(), ...) comes from opt.workspace or else the pool.
template <class Word>
void sort_word_segments(const segment_arrays& a, segment_span span, const options& opt,
                        const char* caller);

}  // namespace bitonic::api
