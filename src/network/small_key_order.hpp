// The words that 1- and 2-byte keys are sorted as: each key widens to a 32-bit word whose unsigned
// `<` refines the key order (bitonic/order.hpp), the precompiled 4-byte sort sorts the words, and
// each word narrows back to its key bit for bit. The same functions run in the device kernels
// (kernels/small_keys.cuh) and in sort_on_cpu, so both give the same bits.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "bitonic/order.hpp"
#include "network/key_order.hpp"

namespace bitonic {

namespace detail {
//! The bits of a 2-byte key, and the key of 16 bits.
template <class Key>
BITONIC_HOST_DEVICE std::uint16_t bits_of(Key k) {
  static_assert(sizeof(Key) == 2, "a 2-byte key");
  std::uint16_t bits;
  std::memcpy(&bits, &k, sizeof bits);
  return bits;
}
template <class Key>
BITONIC_HOST_DEVICE Key key_of(std::uint16_t bits) {
  static_assert(sizeof(Key) == 2, "a 2-byte key");
  Key k;
  std::memcpy(static_cast<void*>(&k), &bits, sizeof k);
  return k;
}

//! A 2-byte float's word: float_word's map (key_order.hpp) on its bits, with NegativeNaNs the
//! number of negative NaN patterns (half: 10 mantissa bits, bfloat16: 7).
template <class Key, std::uint16_t NegativeNaNs>
struct half_float_word {
  using bits_word = float_word<std::uint16_t, std::uint16_t, NegativeNaNs>;
  using type = std::uint16_t;
  BITONIC_HOST_DEVICE static type encode(Key k) { return bits_word::encode(bits_of(k)); }
  BITONIC_HOST_DEVICE static Key decode(type w) { return key_of<Key>(bits_word::decode(w)); }
};
}  // namespace detail

//! __half and __nv_bfloat16 map to words as float does: the sign flip orders -inf < ... < -0.0 <
//! +0.0 < ... < +inf < +NaN < -NaN, and a rotation by the number of negative NaN patterns moves the
//! negative NaNs above the positive ones.
template <>
struct ordered_word<::__half> : detail::half_float_word<::__half, 0x03ffu> {};
template <>
struct ordered_word<::__nv_bfloat16> : detail::half_float_word<::__nv_bfloat16, 0x007fu> {};

//! The key types sorted through small_word: 1- and 2-byte integers, __half and __nv_bfloat16.
template <class Key>
inline constexpr bool is_small_key_v = (std::is_integral_v<Key> && !std::is_same_v<Key, bool> &&
                                        sizeof(Key) <= 2) ||
                                       is_half_float_v<Key>;

//! The 32-bit word of a 1- or 2-byte key: its unsigned_word (integers with the sign bit flipped,
//! floats as above) zero-extended. A bijection onto [0, 2^(8 * sizeof(Key))) whose `<` refines
//! ascending_less: equivalent keys (-0.0 and +0.0, NaNs) have distinct, adjacent words.
template <class Key>
BITONIC_HOST_DEVICE std::uint32_t small_word(Key k) {
  static_assert(is_small_key_v<Key>, "a 1- or 2-byte key");
  return unsigned_word(k);
}

//! The key whose small_word is w (w < 2^(8 * sizeof(Key))).
template <class Key>
BITONIC_HOST_DEVICE Key from_small_word(std::uint32_t w) {
  static_assert(is_small_key_v<Key>, "a 1- or 2-byte key");
  using U = std::make_unsigned_t<typename ordered_word<Key>::type>;
  return from_unsigned_word<Key>(U(w));
}

//! One 16-bit word per class of equivalent keys of a 2-byte float, whose `<` is ascending_less
//! (-0.0 takes +0.0's word, every NaN the positive quiet NaN's; key_order.hpp's class_word for
//! these keys): what a stable sort orders by.
template <class Key>
BITONIC_HOST_DEVICE std::uint16_t half_class_word(Key k) {
  static_assert(is_half_float_v<Key>, "__half or __nv_bfloat16");
  std::uint16_t bits = detail::bits_of(k);
  constexpr bool is_half = std::is_same_v<Key, ::__half>;
  constexpr std::uint16_t infinity = is_half ? 0x7c00u : 0x7f80u;
  constexpr std::uint16_t quiet_nan = is_half ? 0x7e00u : 0x7fc0u;
  if ((bits & 0x7fffu) > infinity) bits = quiet_nan;
  if (bits == 0x8000u) bits = 0;  // -0.0
  return unsigned_word(detail::key_of<Key>(bits));
}

//! The 32-bit word of a 1- or 2-byte key's class of equivalent keys, whose unsigned `<` is
//! ascending_less and whose equality is equivalence: small_word for integers, half_class_word
//! zero-extended for 2-byte floats. What record sorts of these keys order by.
template <class Key>
BITONIC_HOST_DEVICE std::uint32_t small_class_word(Key k) {
  if constexpr (is_half_float_v<Key>) {
    return half_class_word(k);
  } else {
    return small_word(k);
  }
}

//! The 64-bit word of the stable sort of 2-byte floats: the key's class word (complemented when
//! descending) in bits 48..63, its position (< 2^32) in bits 16..47 and its own bits in 0..15, so
//! that ascending words order by key, then by position, and the key's bits come back as they were.
template <class Key>
BITONIC_HOST_DEVICE std::uint64_t stable_half_word(Key k, std::uint64_t position, bool descending) {
  std::uint16_t cls = half_class_word(k);
  if (descending) cls = std::uint16_t(~cls);
  return (std::uint64_t{cls} << 48) | (position << 16) | detail::bits_of(k);
}

//! The key in the low 16 bits of a stable_half_word.
template <class Key>
BITONIC_HOST_DEVICE Key from_stable_half_word(std::uint64_t w) {
  return detail::key_of<Key>(std::uint16_t(w));
}

}  // namespace bitonic
