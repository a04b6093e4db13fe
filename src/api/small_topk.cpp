// topk and topk_workspace_bytes for 1- and 2-byte keys: each key widens to its 32-bit class word
// (kernels/small_keys.hpp; equal exactly for equivalent keys, so ties and NaNs rank as for
// float), topk<std::uint32_t> selects each array's k best words with their indices, and the keys
// are gathered bit for bit through those indices from each array's row. No select or argsort
// kernel is compiled for these types.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "api/options.hpp"
#include "api/topk_args.hpp"
#include "api/workspace.hpp"
#include "bitonic/bitonic.hpp"
#include "kernels/small_keys.hpp"
#include "runtime/stream_buffer.hpp"

namespace bitonic {
namespace api {
namespace {

namespace small = kernels::small_keys;

//! Where topk of small keys keeps its parts in its scratch, in bytes from its aligned start: the
//! class words of every key, indices for the outputs (used when the caller asks for none), then
//! topk<std::uint32_t>'s workspace.
struct small_topk_layout {
  std::size_t indices = 0, sort = 0, sort_bytes = 0, bytes = 0;
};

template <class Index>
small_topk_layout layout_for(std::size_t batch, std::size_t n, std::size_t k, const options& opt) {
  small_topk_layout l;
  l.indices = align_up(batch * n * sizeof(std::uint32_t));
  l.sort = align_up(l.indices + batch * k * sizeof(Index));
  l.sort_bytes = topk_workspace_bytes<std::uint32_t, Index>(batch, n, k, on_scratch(opt));
  l.bytes = l.sort + l.sort_bytes + workspace_alignment;
  return l;
}

template <class Key, class Index>
void topk_small(const Key* d_keys, std::size_t batch, std::size_t n, std::size_t k, Key* d_out_keys,
                Index* d_out_indices, const options& opt) {
  constexpr const char* caller = "bitonic::topk";
  const topk_sizes sizes = check_topk(d_keys, batch, n, k, d_out_keys, d_out_indices, opt, caller);
  if (sizes.done) return;
  using key_bits = std::conditional_t<sizeof(Key) == 1, std::uint8_t, std::uint16_t>;
  small::load_words<Key, std::uint32_t>();  // before any output changes (the word topk loads
  small::load_gather<key_bits, Index>();    // its own)
  const small_topk_layout l = layout_for<Index>(batch, n, k, opt);
  runtime::stream_buffer<std::byte> owned;
  std::byte* const base = workspace_or_pool(
      opt, l.bytes,
      {{d_keys, sizes.keys * sizeof(Key), "the keys"},
       {d_out_keys, d_out_keys != nullptr ? sizes.outputs * sizeof(Key) : 0, "the output keys"},
       {d_out_indices, d_out_indices != nullptr ? sizes.outputs * sizeof(Index) : 0,
        "the output indices"}},
      owned, caller, "bitonic::topk_workspace_bytes");
  auto* const words = reinterpret_cast<std::uint32_t*>(base);
  Index* const indices =
      d_out_indices != nullptr ? d_out_indices : reinterpret_cast<Index*>(base + l.indices);
  small::widen(d_keys, words, sizes.keys, false, true, opt.stream);
  topk(static_cast<const std::uint32_t*>(words), batch, n, k, static_cast<std::uint32_t*>(nullptr),
       indices, on_scratch(opt, base + l.sort, l.sort_bytes));
  if (d_out_keys != nullptr) {
    small::gather(indices, reinterpret_cast<const key_bits*>(d_keys),
                  reinterpret_cast<key_bits*>(d_out_keys), sizes.outputs, k, n, opt.stream);
  }
}

template <class Index>
std::size_t small_topk_bytes(std::size_t batch, std::size_t n, std::size_t k, const options& opt) {
  constexpr const char* caller = "bitonic::topk_workspace_bytes";
  checked_topk_keys(batch, n, k, opt, true, caller);
  if (!topk_sorts(batch, n, k)) return 0;
  if (!gpu_available()) throw error(std::string(caller) + ": no CUDA device");
  return layout_for<Index>(batch, n, k, opt).bytes;
}

}  // namespace
}  // namespace api

#define BITONIC_NO_PAIR(Key, Value)
#define BITONIC_SPECIALIZE_TOPK(Key, Index)                                                     \
  template <>                                                                                   \
  void topk<Key, Index>(const Key* d_keys, std::size_t batch, std::size_t n, std::size_t k,     \
                        Key* d_out_keys, Index* d_out_indices, const options& opt) {            \
    api::topk_small(d_keys, batch, n, k, d_out_keys, d_out_indices, opt);                       \
  }                                                                                             \
  template <>                                                                                   \
  std::size_t topk_workspace_bytes<Key, Index>(std::size_t batch, std::size_t n, std::size_t k, \
                                               const options& opt) {                            \
    return api::small_topk_bytes<Index>(batch, n, k, opt);                                      \
  }
#define BITONIC_SPECIALIZE_KEY_TOPK(Key) \
  BITONIC_FOR_EACH_RECORD(BITONIC_NO_PAIR, BITONIC_SPECIALIZE_TOPK, Key)
BITONIC_FOR_EACH_SMALL_KEY(BITONIC_SPECIALIZE_KEY_TOPK)
#undef BITONIC_SPECIALIZE_KEY_TOPK
#undef BITONIC_SPECIALIZE_TOPK
#undef BITONIC_NO_PAIR

}  // namespace bitonic
