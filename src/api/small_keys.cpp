// sort, sort_batched and their workspace sizes for 1- and 2-byte keys: widen each key to its 32-bit
// word in the scratch (kernels/small_keys.hpp), sort the words with the precompiled
// sort<std::uint32_t> (sort_batched<std::uint32_t>), narrow them back over the keys. A stable sort
// of __half or __nv_bfloat16 keys takes 64-bit words (class, position, bits) and the 8-byte sorts
// instead. No copy of the network's kernels for these types.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "api/options.hpp"
#include "api/small_words.hpp"
#include "api/workspace.hpp"
#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "kernels/small_keys.hpp"
#include "runtime/device.hpp"
#include "runtime/stream_buffer.hpp"

namespace bitonic {
namespace api {
namespace {

namespace small = kernels::small_keys;

constexpr const char* sizing = "bitonic::workspace_bytes";
constexpr const char* batched_sizing = "bitonic::batched_workspace_bytes";

//! Whether a sort of Key with opt sorts 64-bit stable words: 2-byte floats with opt.stable
//! (equivalent keys can differ in bits). Integers are the same stable or not.
template <class Key>
bool sorts_stable_words(const options& opt) {
  return is_half_float_v<Key> && opt.stable;
}

//! word_sort_options for words of type Word (std::uint64_t: stable words).
template <class Word>
options word_options(const options& opt, std::byte* at = nullptr, std::size_t bytes = 0) {
  return word_sort_options(opt, std::is_same_v<Word, std::uint64_t>, at, bytes);
}

//! Where the sort of n >= 2 keys keeps its parts in its scratch, in bytes from its aligned start:
//! the n words, then the word sort's workspace.
struct small_layout {
  std::size_t sort = 0;        //!< the word sort's workspace, sort_bytes of it
  std::size_t sort_bytes = 0;  //!< 0: the word sort works in place
  std::size_t bytes = 0;       //!< all of it, with workspace_alignment of slack
};

//! The layout for n keys sorted as one array (array_size 0) or in arrays of array_size.
template <class Word>
small_layout layout_for(std::size_t n, const options& opt, std::size_t array_size = 0) {
  small_layout l;
  l.sort = align_up(n * sizeof(Word));
  l.sort_bytes = array_size == 0 ? workspace_bytes<Word>(n, word_options<Word>(opt))
                                 : batched_workspace_bytes<Word>(n / array_size, array_size,
                                                                 word_options<Word>(opt));
  l.bytes = l.sort + l.sort_bytes + workspace_alignment;
  return l;
}

//! Sorts d_in[0, n), n >= 2, into d_out[0, n) (the same array, or one apart from it) through
//! words of type Word in the scratch: as one array, or each array of array_size (>= 2) on its own
//! (stable words carry global positions, which order the keys of an array as they do in one).
template <class Word, class Key>
void sort_through_words(const Key* d_in, Key* d_out, std::size_t n, const options& opt,
                        const char* caller, std::size_t array_size = 0) {
  small::load_words<Key, Word>();  // before the keys can change (the word sort loads its own)
  const small_layout l = layout_for<Word>(n, opt, array_size);
  runtime::stream_buffer<std::byte> owned;
  const std::size_t keys_bytes = n * sizeof(Key);
  std::byte* const base = workspace_or_pool(
      opt, l.bytes,
      {{d_out, keys_bytes, "the keys"}, {d_in, d_in != d_out ? keys_bytes : 0, "d_in"}}, owned,
      caller, array_size == 0 ? sizing : batched_sizing);
  Word* const words = reinterpret_cast<Word*>(base);
  const options word_sort = word_options<Word>(opt, base + l.sort, l.sort_bytes);
  small::widen(d_in, words, n, opt.direction == order::descending, false, opt.stream);
  if (array_size == 0) {
    bitonic::sort(words, n, word_sort);
  } else {
    bitonic::sort_batched(words, n / array_size, array_size, word_sort);
  }
  small::narrow(words, d_out, n, opt.stream);
}

//! sort_through_words with the words Key sorts as under opt: 64-bit stable words for stable
//! 2-byte floats (sorts_stable_words), 32-bit words otherwise.
template <class Key>
void sort_through_key_words(const Key* d_in, Key* d_out, std::size_t n, const options& opt,
                            const char* caller, std::size_t array_size = 0) {
  if constexpr (is_half_float_v<Key>) {
    if (opt.stable) {
      return sort_through_words<std::uint64_t>(d_in, d_out, n, opt, caller, array_size);
    }
  }
  sort_through_words<std::uint32_t>(d_in, d_out, n, opt, caller, array_size);
}

//! The scratch bytes of sort_through_key_words.
template <class Key>
std::size_t key_words_bytes(std::size_t n, const options& opt, std::size_t array_size = 0) {
  return sorts_stable_words<Key>(opt) ? layout_for<std::uint64_t>(n, opt, array_size).bytes
                                      : layout_for<std::uint32_t>(n, opt, array_size).bytes;
}

//! sort of d_in[0, n) into d_out (in place when they are the same array): widened from d_in,
//! narrowed into d_out, so out of place costs nothing more.
template <class Key>
void sort_small(const Key* d_in, Key* d_out, std::size_t n, const options& opt) {
  constexpr const char* caller = "bitonic::sort";
  validate(opt, caller);
  const bool in_place = d_in == d_out;
  runtime::require_device_range(d_in, n, sizeof(Key), alignof(Key), caller,
                                in_place ? "d_keys" : "d_in");
  if (!in_place) {
    runtime::require_device_range(d_out, n, sizeof(Key), alignof(Key), caller, "d_out");
    require_apart(d_in, n * sizeof(Key), d_out, n * sizeof(Key), caller, "d_in and d_out");
  }
  if (sorts_stable_words<Key>(opt)) require_stable_positions(n, caller);
  if (n == 0) return;
  if (n < 2) {
    if (!in_place) {
      BITONIC_CUDA_CHECK(
          cudaMemcpyAsync(d_out, d_in, sizeof(Key), cudaMemcpyDeviceToDevice, opt.stream));
    }
    return;
  }
  sort_through_key_words(d_in, d_out, n, opt, caller);
}

template <class Key>
std::size_t small_workspace_bytes(std::size_t n, const options& opt) {
  validate(opt, sizing);
  if (sorts_stable_words<Key>(opt)) require_stable_positions(n, sizing);
  if (n < 2) return 0;
  if (!gpu_available()) throw error(std::string(sizing) + ": no CUDA device");
  return key_words_bytes<Key>(n, opt);
}

//! sort_batched: every array of array_size keys through the words, as sort_small does one.
template <class Key>
void sort_batched_small(Key* d_keys, std::size_t num_arrays, std::size_t array_size,
                        const options& opt) {
  constexpr const char* caller = "bitonic::sort_batched";
  validate(opt, caller);
  const std::size_t n = batch_keys(num_arrays, array_size, caller);
  runtime::require_device_range(d_keys, n, sizeof(Key), alignof(Key), caller);
  require_batched_algorithm(opt, caller);
  if (sorts_stable_words<Key>(opt)) require_stable_positions(n, caller);
  if (num_arrays == 0 || array_size < 2) return;
  sort_through_key_words(d_keys, d_keys, n, opt, caller, array_size);
}

template <class Key>
std::size_t small_batched_workspace_bytes(std::size_t num_arrays, std::size_t array_size,
                                          const options& opt) {
  validate(opt, batched_sizing);
  const std::size_t n = batch_keys(num_arrays, array_size, batched_sizing);
  require_batched_algorithm(opt, batched_sizing);
  if (sorts_stable_words<Key>(opt)) require_stable_positions(n, batched_sizing);
  if (num_arrays == 0 || array_size < 2) return 0;
  if (!gpu_available()) throw error(std::string(batched_sizing) + ": no CUDA device");
  return key_words_bytes<Key>(n, opt, array_size);
}

}  // namespace
}  // namespace api

#define BITONIC_SPECIALIZE(Key)                                                            \
  template <>                                                                              \
  void sort<Key>(Key * d_keys, std::size_t n, const options& opt) {                        \
    api::sort_small<Key>(d_keys, d_keys, n, opt);                                          \
  }                                                                                        \
  template <>                                                                              \
  void sort<Key>(const Key* d_in, Key* d_out, std::size_t n, const options& opt) {         \
    api::sort_small(d_in, d_out, n, opt);                                                  \
  }                                                                                        \
  template <>                                                                              \
  std::size_t workspace_bytes<Key>(std::size_t n, const options& opt) {                    \
    return api::small_workspace_bytes<Key>(n, opt);                                        \
  }                                                                                        \
  template <>                                                                              \
  void sort_batched<Key>(Key * d_keys, std::size_t num_arrays, std::size_t array_size,     \
                         const options& opt) {                                             \
    api::sort_batched_small(d_keys, num_arrays, array_size, opt);                          \
  }                                                                                        \
  template <>                                                                              \
  std::size_t batched_workspace_bytes<Key>(std::size_t num_arrays, std::size_t array_size, \
                                           const options& opt) {                           \
    return api::small_batched_workspace_bytes<Key>(num_arrays, array_size, opt);           \
  }
BITONIC_FOR_EACH_SMALL_KEY(BITONIC_SPECIALIZE)
#undef BITONIC_SPECIALIZE

}  // namespace bitonic
