// sort_pairs and argsort for 1- and 2-byte keys, on the precompiled 4-byte record sorts: each key
// widens to a 32-bit word in the scratch (kernels/small_keys.cuh), so no record kernel is compiled
// for these types. argsort sorts class words (equal exactly for equivalent keys) with
// argsort<std::uint32_t>: the stable order of the keys. sort_pairs sorts the keys' own words with
// sort_pairs<std::uint32_t, Value> and narrows them back over the keys, bit for bit; where
// opt.stable asks it of __half or __nv_bfloat16 keys (whose equivalent keys differ in bits) it
// gathers keys and values through an argsort instead.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "api/options.hpp"
#include "api/records.hpp"
#include "api/workspace.hpp"
#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "kernels/small_keys.cuh"
#include "runtime/stream_buffer.hpp"

namespace bitonic {
namespace api {
namespace {

namespace small = kernels::small_keys;

//! The unsigned integer of Bytes bytes: keys and values move as these.
template <std::size_t Bytes>
using bits_of_size = std::conditional_t<
    Bytes == 1, std::uint8_t,
    std::conditional_t<Bytes == 2, std::uint16_t,
                       std::conditional_t<Bytes == 4, std::uint32_t, std::uint64_t>>>;

template <class T>
const bits_of_size<sizeof(T)>* as_bits(const T* p) {
  return reinterpret_cast<const bits_of_size<sizeof(T)>*>(p);
}
template <class T>
bits_of_size<sizeof(T)>* as_bits(T* p) {
  return reinterpret_cast<bits_of_size<sizeof(T)>*>(p);
}

//! The word sort's options: the caller's algorithm, order, stability and stream, on `workspace`
//! (null: the library's pool).
options word_options(const options& opt, std::byte* workspace = nullptr, std::size_t bytes = 0) {
  options words;
  words.algo = opt.algo;
  words.direction = opt.direction;
  words.stable = opt.stable;
  words.stream = opt.stream;
  if (bytes != 0) {
    words.workspace = workspace;
    words.workspace_bytes = bytes;
  }
  return words;
}

//! Whether sort_pairs of Key with opt gathers through an argsort: stable 2-byte floats.
template <class Key>
bool pairs_by_argsort(const options& opt) {
  return is_half_float_v<Key> && opt.stable;
}

//! Where a record sort of n >= 2 small keys keeps its parts in its scratch, in bytes from its
//! aligned start: `first` bytes of its own (words or indices and copies), then the 4-byte record
//! sort's workspace.
struct small_record_layout {
  std::size_t sort = 0;        //!< the word sort's workspace, sort_bytes of it
  std::size_t sort_bytes = 0;  //!< 0: none
  std::size_t bytes = 0;       //!< all of it, with workspace_alignment of slack
};

small_record_layout layout_after(std::size_t first, std::size_t sort_bytes) {
  small_record_layout l;
  l.sort = align_up(first);
  l.sort_bytes = sort_bytes;
  l.bytes = l.sort + sort_bytes + workspace_alignment;
  return l;
}

//! argsort: n class words, then argsort<std::uint32_t, Index>'s workspace.
template <class Index>
small_record_layout argsort_layout(std::size_t n, const options& opt) {
  return layout_after(n * sizeof(std::uint32_t),
                      argsort_workspace_bytes<std::uint32_t, Index>(n, word_options(opt)));
}

//! sort_pairs by argsort: n 4-byte indices, copies of the keys and values, then the argsort's
//! scratch; otherwise n words, then sort_pairs<std::uint32_t, Value>'s workspace.
struct pairs_parts {
  std::size_t keys_copy = 0, values_copy = 0;
};
template <class Key, class Value>
small_record_layout pairs_layout(std::size_t n, const options& opt, pairs_parts* parts = nullptr) {
  if (!pairs_by_argsort<Key>(opt)) {
    return layout_after(n * sizeof(std::uint32_t),
                        pairs_workspace_bytes<std::uint32_t, Value>(n, word_options(opt)));
  }
  pairs_parts p;
  p.keys_copy = align_up(n * sizeof(std::uint32_t));
  p.values_copy = align_up(p.keys_copy + n * sizeof(Key));
  if (parts != nullptr) *parts = p;
  return layout_after(p.values_copy + n * sizeof(Value),
                      argsort_layout<std::uint32_t>(n, opt).bytes);
}

template <class Key, class Index>
void argsort_small(const Key* d_keys, Key* d_sorted_keys, Index* d_indices, std::size_t n,
                   const options& opt) {
  constexpr const char* caller = "bitonic::argsort";
  validate(opt, caller);
  require_record_arrays(d_keys, d_indices, n, caller, "d_indices");
  require_sorted_keys(d_keys, d_sorted_keys, d_indices, n, caller);
  require_positions(n, caller);
  if (n == 1) {
    BITONIC_CUDA_CHECK(cudaMemsetAsync(d_indices, 0, sizeof(Index), opt.stream));
    if (d_sorted_keys != nullptr) {
      BITONIC_CUDA_CHECK(cudaMemcpyAsync(d_sorted_keys, d_keys, sizeof(Key),
                                         cudaMemcpyDeviceToDevice, opt.stream));
    }
  }
  if (n < 2) return;
  {  // loaded before any output changes (the word argsort loads its own)
    const kernels::load_only_scope loading;
    small::launch_widen<Key, std::uint32_t>(nullptr, nullptr, 0, false, opt.stream, true);
    small::launch_gather<bits_of_size<sizeof(Key)>, Index>(nullptr, nullptr, nullptr, 0,
                                                           opt.stream);
  }
  const small_record_layout l = argsort_layout<Index>(n, opt);
  runtime::stream_buffer<std::byte> owned;
  std::byte* const base = workspace_or_pool(
      opt, l.bytes,
      {{d_keys, n * sizeof(Key), "the keys"},
       {d_indices, n * sizeof(Index), "the indices"},
       {d_sorted_keys, d_sorted_keys != nullptr ? n * sizeof(Key) : 0, "the sorted keys"}},
      owned, caller, "bitonic::argsort_workspace_bytes");
  auto* const words = reinterpret_cast<std::uint32_t*>(base);
  small::launch_widen(d_keys, words, n, false, opt.stream, true);
  argsort(words, d_indices, n, word_options(opt, base + l.sort, l.sort_bytes));
  if (d_sorted_keys != nullptr) {
    small::launch_gather(d_indices, as_bits(d_keys), as_bits(d_sorted_keys), n, opt.stream);
  }
}

template <class Key, class Value>
void sort_pairs_small(Key* d_keys, Value* d_values, std::size_t n, const options& opt) {
  static_assert(sizeof(Value) == 4 || sizeof(Value) == 8, "values of 4 or 8 bytes");
  constexpr const char* caller = "bitonic::sort_pairs";
  validate(opt, caller);
  require_record_arrays(d_keys, d_values, n, caller, "d_values");
  require_positions(n, caller);
  if (n < 2) return;
  using key_bits = bits_of_size<sizeof(Key)>;
  using value_bits = bits_of_size<sizeof(Value)>;
  {  // loaded before any key or value changes (the word sorts load their own)
    const kernels::load_only_scope loading;
    if (pairs_by_argsort<Key>(opt)) {
      small::launch_gather<key_bits, std::uint32_t>(nullptr, nullptr, nullptr, 0, opt.stream);
      small::launch_gather<value_bits, std::uint32_t>(nullptr, nullptr, nullptr, 0, opt.stream);
    } else {
      small::launch_widen<Key, std::uint32_t>(nullptr, nullptr, 0, false, opt.stream);
      small::launch_narrow<Key, std::uint32_t>(nullptr, nullptr, 0, opt.stream);
    }
  }
  pairs_parts parts;
  const small_record_layout l = pairs_layout<Key, Value>(n, opt, &parts);
  runtime::stream_buffer<std::byte> owned;
  std::byte* const base = workspace_or_pool(
      opt, l.bytes,
      {{d_keys, n * sizeof(Key), "the keys"}, {d_values, n * sizeof(Value), "the values"}}, owned,
      caller, "bitonic::pairs_workspace_bytes");
  if (!pairs_by_argsort<Key>(opt)) {
    auto* const words = reinterpret_cast<std::uint32_t*>(base);
    small::launch_widen(d_keys, words, n, false, opt.stream);
    sort_pairs(words, as_bits(d_values), n, word_options(opt, base + l.sort, l.sort_bytes));
    small::launch_narrow(words, d_keys, n, opt.stream);
    return;
  }
  auto* const order = reinterpret_cast<std::uint32_t*>(base);
  auto* const keys_copy = reinterpret_cast<key_bits*>(base + parts.keys_copy);
  auto* const values_copy = reinterpret_cast<value_bits*>(base + parts.values_copy);
  argsort(static_cast<const Key*>(d_keys), order, n,
          word_options(opt, base + l.sort, l.sort_bytes));
  BITONIC_CUDA_CHECK(
      cudaMemcpyAsync(keys_copy, d_keys, n * sizeof(Key), cudaMemcpyDeviceToDevice, opt.stream));
  BITONIC_CUDA_CHECK(cudaMemcpyAsync(values_copy, d_values, n * sizeof(Value),
                                     cudaMemcpyDeviceToDevice, opt.stream));
  small::launch_gather(order, keys_copy, as_bits(d_keys), n, opt.stream);
  small::launch_gather(order, values_copy, as_bits(d_values), n, opt.stream);
}

//! A workspace function's answer: its checks, 0 below two keys, else the bytes of `layout()`.
template <class Layout>
std::size_t sized(std::size_t n, const options& opt, const char* caller, Layout layout) {
  validate(opt, caller);
  require_positions(n, caller);
  if (n < 2) return 0;
  if (!gpu_available()) throw error(std::string(caller) + ": no CUDA device");
  return layout().bytes;
}

}  // namespace
}  // namespace api

#define BITONIC_SPECIALIZE_PAIR(Key, Value)                                                        \
  template <>                                                                                      \
  void sort_pairs<Key, Value>(Key * d_keys, Value * d_values, std::size_t n, const options& opt) { \
    api::sort_pairs_small(d_keys, d_values, n, opt);                                               \
  }                                                                                                \
  template <>                                                                                      \
  std::size_t pairs_workspace_bytes<Key, Value>(std::size_t n, const options& opt) {               \
    return api::sized(n, opt, "bitonic::pairs_workspace_bytes",                                    \
                      [&] { return api::pairs_layout<Key, Value>(n, opt); });                      \
  }
#define BITONIC_SPECIALIZE_INDEX(Key, Index)                                                       \
  template <>                                                                                      \
  void argsort<Key, Index>(const Key* d_keys, Key* d_sorted_keys, Index* d_indices, std::size_t n, \
                           const options& opt) {                                                   \
    api::argsort_small(d_keys, d_sorted_keys, d_indices, n, opt);                                  \
  }                                                                                                \
  template <>                                                                                      \
  void argsort<Key, Index>(const Key* d_keys, Index* d_indices, std::size_t n,                     \
                           const options& opt) {                                                   \
    api::argsort_small(d_keys, static_cast<Key*>(nullptr), d_indices, n, opt);                     \
  }                                                                                                \
  template <>                                                                                      \
  std::size_t argsort_workspace_bytes<Key, Index>(std::size_t n, const options& opt) {             \
    return api::sized(n, opt, "bitonic::argsort_workspace_bytes",                                  \
                      [&] { return api::argsort_layout<Index>(n, opt); });                         \
  }
#define BITONIC_SPECIALIZE_RECORDS(Key) \
  BITONIC_FOR_EACH_RECORD(BITONIC_SPECIALIZE_PAIR, BITONIC_SPECIALIZE_INDEX, Key)
BITONIC_FOR_EACH_SMALL_KEY(BITONIC_SPECIALIZE_RECORDS)
#undef BITONIC_SPECIALIZE_RECORDS
#undef BITONIC_SPECIALIZE_INDEX
#undef BITONIC_SPECIALIZE_PAIR

}  // namespace bitonic
