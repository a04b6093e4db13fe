// sort_segments, sort_segments_pairs, argsort_segments and segments_workspace_bytes for 1- and
// 2-byte keys: the keys of the offsets' span widen to words (kernels/small_keys.hpp), the 4- or
// 8-byte segmented sort sorts those (api/segments.hpp, its offsets read from the span's first
// key on), and the sorted words narrow back over the keys. Which words: argsort takes class words
// (equal exactly for equivalent keys: the stable order); keys and pairs take each key's own
// 32-bit word (bit for bit), except where equivalent keys must keep their order and can differ in
// bits (__half and __nv_bfloat16 pairs, and their keys with opt.stable): 64-bit words of class,
// position and bits, unique, so their sort needs no stability of its own.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "api/options.hpp"
#include "api/segments.hpp"
#include "api/small_words.hpp"
#include "api/workspace.hpp"
#include "bitonic/bitonic.hpp"
#include "kernels/small_keys.hpp"
#include "network/small_key_order.hpp"
#include "runtime/stream_buffer.hpp"

namespace bitonic {
namespace api {
namespace {

namespace small = kernels::small_keys;

//! The words a segmented call of Key sorts (see the top of the file).
enum class words_kind { own, by_class, stable };

template <class Key>
words_kind words_for(std::size_t value_bytes, std::size_t index_bytes, const options& opt) {
  if (index_bytes != 0) return words_kind::by_class;
  if (is_half_float_v<Key> && (value_bytes != 0 || opt.stable)) return words_kind::stable;
  return words_kind::own;
}

//! word_sort_options for the words of `kind`.
options word_options(const options& opt, words_kind kind, std::byte* at = nullptr,
                     std::size_t bytes = 0) {
  return word_sort_options(opt, kind == words_kind::stable, at, bytes);
}

//! Where a call keeps its parts in its scratch, in bytes from its aligned start: the span's
//! words, then the word sort's workspace (given only with the caller's workspace; otherwise the
//! word sort takes what its segments need from the pool itself).
struct small_segments_layout {
  std::size_t sort = 0, sort_bytes = 0, bytes = 0;
};

small_segments_layout layout_for(std::size_t keys, std::size_t num_segments, words_kind kind,
                                 std::size_t value_bytes, std::size_t index_bytes,
                                 const options& opt) {
  small_segments_layout l;
  const bool wide = kind == words_kind::stable;
  l.sort = align_up(keys * (wide ? sizeof(std::uint64_t) : sizeof(std::uint32_t)));
  const options words = word_options(opt, kind);
  l.sort_bytes = wide ? segments_workspace_bytes<std::uint64_t>(keys, num_segments, words,
                                                                value_bytes, index_bytes)
                      : segments_workspace_bytes<std::uint32_t>(keys, num_segments, words,
                                                                value_bytes, index_bytes);
  l.bytes = l.sort + l.sort_bytes + workspace_alignment;
  return l;
}

//! Widens the span's keys to Word words at `base`, sorts them as segments and narrows them back
//! into out_keys (unless null), after check_segments.
template <class Word, class Key>
void sort_span_words(const Key* d_keys, Key* d_out_keys, segment_arrays a, segment_span span,
                     words_kind kind, const options& opt, const char* caller) {
  const small_segments_layout l =
      layout_for(span.keys(), a.num_segments, kind, a.value_bytes, a.index_bytes, opt);
  const bool given = has_workspace(opt);
  const std::size_t second_bytes = a.value_bytes + a.index_bytes;
  void* const second = a.value_bytes != 0 ? a.values : a.indices;
  std::byte* const second_span =
      second != nullptr ? static_cast<std::byte*>(second) + span.first * second_bytes : nullptr;
  runtime::stream_buffer<std::byte> owned;
  std::byte* const base =
      workspace_or_pool(opt, given ? l.bytes : l.sort + workspace_alignment,
                        {{d_keys + span.first, span.keys() * sizeof(Key), "the keys"},
                         {second_span, second != nullptr ? span.keys() * second_bytes : 0,
                          a.value_bytes != 0 ? "the values" : "the indices"}},
                        owned, caller, "bitonic::segments_workspace_bytes");
  auto* const words = reinterpret_cast<Word*>(base);
  small::load_words<Key, Word>();  // before a key changes (the word sort loads its own)
  small::widen(d_keys + span.first, words, span.keys(), opt.direction == order::descending,
               kind == words_kind::by_class, opt.stream);
  a.keys = words;
  a.key_bytes = sizeof(Word);
  a.origin = span.first;
  if (a.value_bytes != 0) a.values = second_span;
  if (a.index_bytes != 0) a.indices = second_span;
  const options word_sort =
      given ? word_options(opt, kind, base + l.sort, l.sort_bytes) : word_options(opt, kind);
  sort_word_segments<Word>(a, span, word_sort, caller);
  if (d_out_keys != nullptr) small::narrow(words, d_out_keys + span.first, span.keys(), opt.stream);
}

//! A segmented call of small keys: keys only and pairs sort d_keys in place (out_keys is d_keys),
//! argsort leaves them (out_keys null) and writes a.indices.
template <class Key>
void sort_small_segments(const Key* d_keys, Key* d_out_keys, const segment_arrays& a,
                         const options& opt, const char* caller) {
  const std::optional<segment_span> span = check_segments(a, opt, caller);
  if (!span) return;
  const words_kind kind = words_for<Key>(a.value_bytes, a.index_bytes, opt);
  if (kind == words_kind::stable) {
    require_stable_positions(span->keys(), caller);  // the keys in the segments
    return sort_span_words<std::uint64_t>(d_keys, d_out_keys, a, *span, kind, opt, caller);
  }
  sort_span_words<std::uint32_t>(d_keys, d_out_keys, a, *span, kind, opt, caller);
}

//! The type-erased arrays of a call on the caller's keys.
template <class Key, class Offset>
segment_arrays arrays_of(const Key* d_keys, const Offset* d_offsets, std::size_t num_segments) {
  segment_arrays a;
  a.keys = d_keys;
  a.key_bytes = sizeof(Key);
  a.offsets = d_offsets;
  a.offset_bytes = sizeof(Offset);
  a.num_segments = num_segments;
  return a;
}

template <class Key>
std::size_t small_segments_bytes(std::size_t num_keys, std::size_t num_segments, const options& opt,
                                 std::size_t value_bytes, std::size_t index_bytes) {
  // The word sort's answer first: its checks, and 0 without segments.
  const words_kind kind = words_for<Key>(value_bytes, index_bytes, opt);
  const small_segments_layout l =
      layout_for(num_keys, num_segments, kind, value_bytes, index_bytes, opt);
  return num_segments == 0 ? 0 : l.bytes;
}

}  // namespace
}  // namespace api

#define BITONIC_SPECIALIZE_SEGMENTS(Key, Offset)                                                   \
  template <>                                                                                      \
  void sort_segments<Key, Offset>(Key * d_keys, const Offset* d_offsets, std::size_t num_segments, \
                                  const options& opt) {                                            \
    api::sort_small_segments(d_keys, d_keys, api::arrays_of(d_keys, d_offsets, num_segments), opt, \
                             "bitonic::sort_segments");                                            \
  }
#define BITONIC_SPECIALIZE_SEGMENTS_PAIR(Key, Value, Offset)                                      \
  template <>                                                                                     \
  void sort_segments_pairs<Key, Value, Offset>(Key * d_keys, Value * d_values,                    \
                                               const Offset* d_offsets, std::size_t num_segments, \
                                               const options& opt) {                              \
    api::segment_arrays a = api::arrays_of(d_keys, d_offsets, num_segments);                      \
    a.values = d_values;                                                                          \
    a.value_bytes = sizeof(Value);                                                                \
    api::sort_small_segments(d_keys, d_keys, a, opt, "bitonic::sort_segments_pairs");             \
  }
#define BITONIC_SPECIALIZE_SEGMENTS_INDEX(Key, Index, Offset)                                  \
  template <>                                                                                  \
  void argsort_segments<Key, Index, Offset>(const Key* d_keys, Index* d_indices,               \
                                            const Offset* d_offsets, std::size_t num_segments, \
                                            const options& opt) {                              \
    api::segment_arrays a = api::arrays_of(d_keys, d_offsets, num_segments);                   \
    a.indices = d_indices;                                                                     \
    a.index_bytes = sizeof(Index);                                                             \
    api::sort_small_segments(d_keys, static_cast<Key*>(nullptr), a, opt,                       \
                             "bitonic::argsort_segments");                                     \
  }
#define BITONIC_SPECIALIZE_SEGMENTS_PAIRS(Key, Value)         \
  BITONIC_SPECIALIZE_SEGMENTS_PAIR(Key, Value, std::uint32_t) \
  BITONIC_SPECIALIZE_SEGMENTS_PAIR(Key, Value, std::uint64_t)
#define BITONIC_SPECIALIZE_SEGMENTS_INDICES(Key, Index)        \
  BITONIC_SPECIALIZE_SEGMENTS_INDEX(Key, Index, std::uint32_t) \
  BITONIC_SPECIALIZE_SEGMENTS_INDEX(Key, Index, std::uint64_t)
#define BITONIC_SPECIALIZE_SMALL_SEGMENTS(Key)                                                    \
  template <>                                                                                     \
  std::size_t segments_workspace_bytes<Key>(std::size_t num_keys, std::size_t num_segments,       \
                                            const options& opt, std::size_t value_bytes,          \
                                            std::size_t index_bytes) {                            \
    return api::small_segments_bytes<Key>(num_keys, num_segments, opt, value_bytes, index_bytes); \
  }                                                                                               \
  BITONIC_SPECIALIZE_SEGMENTS(Key, std::uint32_t)                                                 \
  BITONIC_SPECIALIZE_SEGMENTS(Key, std::uint64_t)                                                 \
  BITONIC_FOR_EACH_RECORD(BITONIC_SPECIALIZE_SEGMENTS_PAIRS, BITONIC_SPECIALIZE_SEGMENTS_INDICES, \
                          Key)
BITONIC_FOR_EACH_SMALL_KEY(BITONIC_SPECIALIZE_SMALL_SEGMENTS)
#undef BITONIC_SPECIALIZE_SMALL_SEGMENTS
#undef BITONIC_SPECIALIZE_SEGMENTS_INDICES
#undef BITONIC_SPECIALIZE_SEGMENTS_PAIRS
#undef BITONIC_SPECIALIZE_SEGMENTS_INDEX
#undef BITONIC_SPECIALIZE_SEGMENTS_PAIR
#undef BITONIC_SPECIALIZE_SEGMENTS

}  // namespace bitonic
