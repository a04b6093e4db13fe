// sort_on_cpu for 1- and 2-byte keys: the words of network/small_key_order.hpp sorted by
// sort_on_cpu<std::uint32_t> (the same words and word sort as the device's, so the same bits), or
// for a stable sort of __half and __nv_bfloat16 keys std::stable_sort, as for float keys.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <string>

#include "api/options.hpp"
#include "bitonic/bitonic.hpp"
#include "network/small_key_order.hpp"

namespace bitonic {
namespace api {
namespace {

template <class Key>
void sort_small_on_cpu(Key* h_keys, std::size_t n, const options& opt) {
  constexpr const char* caller = "bitonic::sort_on_cpu";
  validate(opt, caller);
  require_host_keys(h_keys, n, caller);
  if (n < 2) return;
  if (is_half_float_v<Key> && opt.stable) {  // equivalent keys can differ in bits
    with_order(opt.direction, [&](auto less) { std::stable_sort(h_keys, h_keys + n, less); });
    return;
  }
  const std::unique_ptr<std::uint32_t[]> words(new (std::nothrow) std::uint32_t[n]);
  if (!words) {
    throw error(std::string(caller) + ": not enough host memory for the keys' words (" +
                std::to_string(n * sizeof(std::uint32_t)) + " bytes)");
  }
  std::transform(h_keys, h_keys + n, words.get(), [](Key k) { return small_word(k); });
  options word_sort = opt;
  word_sort.stable = false;
  sort_on_cpu(words.get(), n, word_sort);
  std::transform(words.get(), words.get() + n, h_keys,
                 [](std::uint32_t w) { return from_small_word<Key>(w); });
}

}  // namespace
}  // namespace api

#define BITONIC_SPECIALIZE(Key)                                            \
  template <>                                                              \
  void sort_on_cpu<Key>(Key * h_keys, std::size_t n, const options& opt) { \
    api::sort_small_on_cpu(h_keys, n, opt);                                \
  }
BITONIC_FOR_EACH_SMALL_KEY(BITONIC_SPECIALIZE)
#undef BITONIC_SPECIALIZE

}  // namespace bitonic
