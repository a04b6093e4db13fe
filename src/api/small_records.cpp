// sort_pairs, argsort and their batched forms for 1- and 2-byte keys, on the precompiled 4-byte
// record sorts: each key widens to a 32-bit word in the scratch (kernels/small_keys.hpp), so no
// record kernel is compiled for these types. argsort sorts class words (equal exactly for
// equivalent keys) with argsort<std::uint32_t> (argsort_batched): the stable order of the keys.
// sort_pairs sorts the keys' own words with sort_pairs<std::uint32_t, Value> and narrows them back
// over the keys, bit for bit; where opt.stable asks it of __half or __nv_bfloat16 keys (whose
// equivalent keys differ in bits) it gathers keys and values through an argsort instead. Batched
// indices count from each array's start, so the gathers read each array's row.
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
#include "kernels/small_keys.hpp"
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

//! A record call's arrays: one array of n keys (array_size 0), or arrays of array_size keys.
struct batch {
  std::size_t n = 0;
  std::size_t array_size = 0;
  std::size_t arrays() const { return n / array_size; }
};

//! argsort: n class words, then the workspace of argsort<std::uint32_t, Index> (or its batched
//! form).
template <class Index>
small_record_layout argsort_layout(batch b, const options& opt) {
  const options words = on_scratch(opt);
  return layout_after(b.n * sizeof(std::uint32_t),
                      b.array_size == 0 ? argsort_workspace_bytes<std::uint32_t, Index>(b.n, words)
                                        : batched_argsort_workspace_bytes<std::uint32_t, Index>(
                                              b.arrays(), b.array_size, words));
}

//! sort_pairs by argsort: n 4-byte indices, copies of the keys and values, then the argsort's
//! scratch; otherwise n words, then sort_pairs<std::uint32_t, Value>'s workspace.
struct pairs_parts {
  std::size_t keys_copy = 0, values_copy = 0;
};
template <class Key, class Value>
small_record_layout pairs_layout(batch b, const options& opt, pairs_parts* parts = nullptr) {
  if (!pairs_by_argsort<Key>(opt)) {
    const options words = on_scratch(opt);
    return layout_after(b.n * sizeof(std::uint32_t),
                        b.array_size == 0 ? pairs_workspace_bytes<std::uint32_t, Value>(b.n, words)
                                          : batched_pairs_workspace_bytes<std::uint32_t, Value>(
                                                b.arrays(), b.array_size, words));
  }
  pairs_parts p;
  p.keys_copy = align_up(b.n * sizeof(std::uint32_t));
  p.values_copy = align_up(p.keys_copy + b.n * sizeof(Key));
  if (parts != nullptr) *parts = p;
  return layout_after(p.values_copy + b.n * sizeof(Value),
                      argsort_layout<std::uint32_t>(b, opt).bytes);
}

//! The argsort of words (one array or each array of b) into indices, with `o`.
template <class Index>
void argsort_words(const std::uint32_t* words, Index* indices, batch b, const options& o) {
  if (b.array_size == 0) return argsort(words, indices, b.n, o);
  argsort_batched(words, indices, b.arrays(), b.array_size, o);
}

//! The argsort of n >= 2 keys in arrays b (arrays of at least two keys), arguments checked.
template <class Key, class Index>
void argsort_small(const Key* d_keys, Key* d_sorted_keys, Index* d_indices, batch b,
                   const options& opt, const char* caller, const char* sizing) {
  using key_bits = bits_of_size<sizeof(Key)>;
  small::load_words<Key, std::uint32_t>();  // before any output changes (the word argsort loads
  small::load_gather<key_bits, Index>();    // its own)
  const small_record_layout l = argsort_layout<Index>(b, opt);
  runtime::stream_buffer<std::byte> owned;
  std::byte* const base = workspace_or_pool(
      opt, l.bytes,
      {{d_keys, b.n * sizeof(Key), "the keys"},
       {d_indices, b.n * sizeof(Index), "the indices"},
       {d_sorted_keys, d_sorted_keys != nullptr ? b.n * sizeof(Key) : 0, "the sorted keys"}},
      owned, caller, sizing);
  auto* const words = reinterpret_cast<std::uint32_t*>(base);
  small::widen(d_keys, words, b.n, false, true, opt.stream);
  argsort_words(words, d_indices, b, on_scratch(opt, base + l.sort, l.sort_bytes));
  if (d_sorted_keys != nullptr) {
    small::gather(d_indices, as_bits(d_keys), as_bits(d_sorted_keys), b.n, b.array_size,
                  b.array_size, opt.stream);
  }
}

template <class Key, class Index>
void argsort_one(const Key* d_keys, Key* d_sorted_keys, Index* d_indices, std::size_t n,
                 const options& opt) {
  constexpr const char* caller = "bitonic::argsort";
  validate(opt, caller);
  require_record_arrays(d_keys, d_indices, n, caller, "d_indices");
  require_sorted_keys(d_keys, d_sorted_keys, d_indices, n, caller);
  require_positions(n, caller);
  if (n == 1) argsort_of_single_keys(d_keys, d_sorted_keys, d_indices, n, opt.stream);
  if (n < 2) return;
  argsort_small(d_keys, d_sorted_keys, d_indices, {n, 0}, opt, caller,
                "bitonic::argsort_workspace_bytes");
}

template <class Key, class Index>
void argsort_arrays(const Key* d_keys, Key* d_sorted_keys, Index* d_indices, std::size_t num_arrays,
                    std::size_t array_size, const options& opt) {
  constexpr const char* caller = "bitonic::argsort_batched";
  const std::size_t n = batched_record_count(num_arrays, array_size, opt, caller);
  require_record_arrays(d_keys, d_indices, n, caller, "d_indices");
  require_sorted_keys(d_keys, d_sorted_keys, d_indices, n, caller);
  if (n == 0) return;
  if (array_size == 1) {
    return argsort_of_single_keys(d_keys, d_sorted_keys, d_indices, n, opt.stream);
  }
  argsort_small(d_keys, d_sorted_keys, d_indices, {n, array_size}, opt, caller,
                "bitonic::batched_argsort_workspace_bytes");
}

//! The records of n >= 2 keys in arrays b (arrays of at least two keys), arguments checked.
template <class Key, class Value>
void sort_pairs_small(Key* d_keys, Value* d_values, batch b, const options& opt, const char* caller,
                      const char* sizing) {
  static_assert(sizeof(Value) == 4 || sizeof(Value) == 8, "values of 4 or 8 bytes");
  using key_bits = bits_of_size<sizeof(Key)>;
  using value_bits = bits_of_size<sizeof(Value)>;
  if (pairs_by_argsort<Key>(opt)) {  // loaded before any key or value changes (the word sorts
    small::load_gather<key_bits, std::uint32_t>();  // load their own)
    small::load_gather<value_bits, std::uint32_t>();
  } else {
    small::load_words<Key, std::uint32_t>();
  }
  pairs_parts parts;
  const small_record_layout l = pairs_layout<Key, Value>(b, opt, &parts);
  runtime::stream_buffer<std::byte> owned;
  std::byte* const base = workspace_or_pool(
      opt, l.bytes,
      {{d_keys, b.n * sizeof(Key), "the keys"}, {d_values, b.n * sizeof(Value), "the values"}},
      owned, caller, sizing);
  const options words_opt = on_scratch(opt, base + l.sort, l.sort_bytes);
  if (!pairs_by_argsort<Key>(opt)) {
    auto* const words = reinterpret_cast<std::uint32_t*>(base);
    small::widen(d_keys, words, b.n, false, false, opt.stream);
    if (b.array_size == 0) {
      sort_pairs(words, as_bits(d_values), b.n, words_opt);
    } else {
      sort_batched_pairs(words, as_bits(d_values), b.arrays(), b.array_size, words_opt);
    }
    small::narrow(words, d_keys, b.n, opt.stream);
    return;
  }
  auto* const order = reinterpret_cast<std::uint32_t*>(base);
  auto* const keys_copy = reinterpret_cast<key_bits*>(base + parts.keys_copy);
  auto* const values_copy = reinterpret_cast<value_bits*>(base + parts.values_copy);
  if (b.array_size == 0) {
    argsort(static_cast<const Key*>(d_keys), order, b.n, words_opt);
  } else {
    argsort_batched(static_cast<const Key*>(d_keys), order, b.arrays(), b.array_size, words_opt);
  }
  BITONIC_CUDA_CHECK(
      cudaMemcpyAsync(keys_copy, d_keys, b.n * sizeof(Key), cudaMemcpyDeviceToDevice, opt.stream));
  BITONIC_CUDA_CHECK(cudaMemcpyAsync(values_copy, d_values, b.n * sizeof(Value),
                                     cudaMemcpyDeviceToDevice, opt.stream));
  small::gather(order, keys_copy, as_bits(d_keys), b.n, b.array_size, b.array_size, opt.stream);
  small::gather(order, values_copy, as_bits(d_values), b.n, b.array_size, b.array_size, opt.stream);
}

template <class Key, class Value>
void sort_pairs_one(Key* d_keys, Value* d_values, std::size_t n, const options& opt) {
  constexpr const char* caller = "bitonic::sort_pairs";
  validate(opt, caller);
  require_record_arrays(d_keys, d_values, n, caller, "d_values");
  require_positions(n, caller);
  if (n < 2) return;
  sort_pairs_small(d_keys, d_values, {n, 0}, opt, caller, "bitonic::pairs_workspace_bytes");
}

template <class Key, class Value>
void sort_pairs_arrays(Key* d_keys, Value* d_values, std::size_t num_arrays, std::size_t array_size,
                       const options& opt) {
  constexpr const char* caller = "bitonic::sort_batched_pairs";
  const std::size_t n = batched_record_count(num_arrays, array_size, opt, caller);
  require_record_arrays(d_keys, d_values, n, caller, "d_values");
  if (num_arrays == 0 || array_size < 2) return;
  sort_pairs_small(d_keys, d_values, {n, array_size}, opt, caller,
                   "bitonic::batched_pairs_workspace_bytes");
}

//! A workspace function's answer for one array of n keys: its checks, 0 below two keys, else the
//! bytes of layout(batch).
template <class Layout>
std::size_t sized(std::size_t n, const options& opt, const char* caller, Layout layout) {
  validate(opt, caller);
  require_positions(n, caller);
  if (n < 2) return 0;
  if (!gpu_available()) throw error(std::string(caller) + ": no CUDA device");
  return layout(batch{n, 0}).bytes;
}

//! The same for a batched form: 0 without arrays of two keys or more.
template <class Layout>
std::size_t sized(std::size_t num_arrays, std::size_t array_size, const options& opt,
                  const char* caller, Layout layout) {
  const std::size_t n = batched_record_count(num_arrays, array_size, opt, caller);
  if (num_arrays == 0 || array_size < 2) return 0;
  if (!gpu_available()) throw error(std::string(caller) + ": no CUDA device");
  return layout(batch{n, array_size}).bytes;
}

}  // namespace
}  // namespace api

#define BITONIC_SPECIALIZE_PAIR(Key, Value)                                                        \
  template <>                                                                                      \
  void sort_pairs<Key, Value>(Key * d_keys, Value * d_values, std::size_t n, const options& opt) { \
    api::sort_pairs_one(d_keys, d_values, n, opt);                                                 \
  }                                                                                                \
  template <>                                                                                      \
  std::size_t pairs_workspace_bytes<Key, Value>(std::size_t n, const options& opt) {               \
    return api::sized(n, opt, "bitonic::pairs_workspace_bytes",                                    \
                      [&](api::batch b) { return api::pairs_layout<Key, Value>(b, opt); });        \
  }                                                                                                \
  template <>                                                                                      \
  void sort_batched_pairs<Key, Value>(Key * d_keys, Value * d_values, std::size_t num_arrays,      \
                                      std::size_t array_size, const options& opt) {                \
    api::sort_pairs_arrays(d_keys, d_values, num_arrays, array_size, opt);                         \
  }                                                                                                \
  template <>                                                                                      \
  std::size_t batched_pairs_workspace_bytes<Key, Value>(                                           \
      std::size_t num_arrays, std::size_t array_size, const options& opt) {                        \
    return api::sized(num_arrays, array_size, opt, "bitonic::batched_pairs_workspace_bytes",       \
                      [&](api::batch b) { return api::pairs_layout<Key, Value>(b, opt); });        \
  }
#define BITONIC_SPECIALIZE_INDEX(Key, Index)                                                       \
  template <>                                                                                      \
  void argsort<Key, Index>(const Key* d_keys, Key* d_sorted_keys, Index* d_indices, std::size_t n, \
                           const options& opt) {                                                   \
    api::argsort_one(d_keys, d_sorted_keys, d_indices, n, opt);                                    \
  }                                                                                                \
  template <>                                                                                      \
  void argsort<Key, Index>(const Key* d_keys, Index* d_indices, std::size_t n,                     \
                           const options& opt) {                                                   \
    api::argsort_one(d_keys, static_cast<Key*>(nullptr), d_indices, n, opt);                       \
  }                                                                                                \
  template <>                                                                                      \
  std::size_t argsort_workspace_bytes<Key, Index>(std::size_t n, const options& opt) {             \
    return api::sized(n, opt, "bitonic::argsort_workspace_bytes",                                  \
                      [&](api::batch b) { return api::argsort_layout<Index>(b, opt); });           \
  }                                                                                                \
  template <>                                                                                      \
  void argsort_batched<Key, Index>(const Key* d_keys, Key* d_sorted_keys, Index* d_indices,        \
                                   std::size_t num_arrays, std::size_t array_size,                 \
                                   const options& opt) {                                           \
    api::argsort_arrays(d_keys, d_sorted_keys, d_indices, num_arrays, array_size, opt);            \
  }                                                                                                \
  template <>                                                                                      \
  void argsort_batched<Key, Index>(const Key* d_keys, Index* d_indices, std::size_t num_arrays,    \
                                   std::size_t array_size, const options& opt) {                   \
    api::argsort_arrays(d_keys, static_cast<Key*>(nullptr), d_indices, num_arrays, array_size,     \
                        opt);                                                                      \
  }                                                                                                \
  template <>                                                                                      \
  std::size_t batched_argsort_workspace_bytes<Key, Index>(                                         \
      std::size_t num_arrays, std::size_t array_size, const options& opt) {                        \
    return api::sized(num_arrays, array_size, opt, "bitonic::batched_argsort_workspace_bytes",     \
                      [&](api::batch b) { return api::argsort_layout<Index>(b, opt); });           \
  }
#define BITONIC_SPECIALIZE_RECORDS(Key) \
  BITONIC_FOR_EACH_RECORD(BITONIC_SPECIALIZE_PAIR, BITONIC_SPECIALIZE_INDEX, Key)
BITONIC_FOR_EACH_SMALL_KEY(BITONIC_SPECIALIZE_RECORDS)
#undef BITONIC_SPECIALIZE_RECORDS
#undef BITONIC_SPECIALIZE_INDEX
#undef BITONIC_SPECIALIZE_PAIR

}  // namespace bitonic
