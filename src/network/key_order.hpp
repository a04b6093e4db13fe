// The words kernels sort in place of keys (ordered_word): unsigned integers whose `<` refines the
// orders of bitonic/order.hpp, so that a comparator is one integer min/max.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "bitonic/order.hpp"
#include "network/network.hpp"

namespace bitonic {

//! The word a kernel sorts in place of a key. 32-bit integers and uint64 are their own words; an
//! int64 becomes unsigned with its sign bit flipped, so that all 8-byte words are unsigned
//! (network::compare_exchange has a cheaper form for those). A float becomes an
//! unsigned integer whose `<` refines ascending_less: the usual sign flip (negative numbers
//! inverted, positive ones offset by the sign bit) orders -inf < ... < -0.0 < +0.0 < ... < +inf <
//! +NaN < -NaN, then a rotation by the number of negative NaN patterns moves the negative NaNs
//! above the positive ones. The map is a bijection, so decode(encode(x)) is x bit for bit, and
//! -0.0 sorting before +0.0 is allowed because they are equivalent. Comparing words costs one
//! integer min/max instead of the NaN checks of ascending_less.
template <class Key>
struct ordered_word {
  using type = Key;
  BITONIC_HOST_DEVICE static constexpr type encode(Key k) { return k; }
  BITONIC_HOST_DEVICE static constexpr Key decode(type w) { return w; }
};

namespace detail {
template <class Float, class Bits, Bits NegativeNaNs>
struct float_word {
  using type = Bits;
  static constexpr Bits sign = Bits{1} << (sizeof(Bits) * 8 - 1);
  BITONIC_HOST_DEVICE static type encode(Float f) {
    Bits u;
    std::memcpy(&u, &f, sizeof u);
    return ((u & sign) ? ~u : (u | sign)) - NegativeNaNs;
  }
  BITONIC_HOST_DEVICE static Float decode(type w) {
    const Bits s = w + NegativeNaNs;
    const Bits u = (s & sign) ? (s & ~sign) : ~s;
    Float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  }
};
}  // namespace detail

template <>
struct ordered_word<std::int64_t> {
  using type = std::uint64_t;
  static constexpr type sign = type{1} << 63;
  BITONIC_HOST_DEVICE static constexpr type encode(std::int64_t k) { return type(k) ^ sign; }
  BITONIC_HOST_DEVICE static constexpr std::int64_t decode(type w) {
    return static_cast<std::int64_t>(w ^ sign);
  }
};
template <>
struct ordered_word<float> : detail::float_word<float, std::uint32_t, 0x007f'ffffu> {};
template <>
struct ordered_word<double> : detail::float_word<double, std::uint64_t, 0x000f'ffff'ffff'ffffull> {
};

//! ordered_word as an unsigned integer (int32's word has its sign bit flipped): a bijection whose
//! `<` refines the keys' ascending order, so that records can carry a key in the high half of a
//! 64-bit word and decode it back bit for bit (from_unsigned_word).
template <class Key>
BITONIC_HOST_DEVICE std::make_unsigned_t<typename ordered_word<Key>::type> unsigned_word(Key k) {
  using W = typename ordered_word<Key>::type;
  using U = std::make_unsigned_t<W>;
  const U word = U(ordered_word<Key>::encode(k));
  if constexpr (std::is_signed_v<W>) {
    return word ^ (U{1} << (sizeof(U) * 8 - 1));
  } else {
    return word;
  }
}

//! The key whose unsigned_word is w.
template <class Key>
BITONIC_HOST_DEVICE Key
from_unsigned_word(std::make_unsigned_t<typename ordered_word<Key>::type> w) {
  using W = typename ordered_word<Key>::type;
  if constexpr (std::is_signed_v<W>) {
    return ordered_word<Key>::decode(W(w ^ (decltype(w){1} << (sizeof(w) * 8 - 1))));
  } else {
    return ordered_word<Key>::decode(W(w));
  }
}

//! The bits of the positive quiet NaN of a float of W's size: every NaN's class (class_word).
template <class W>
inline constexpr W quiet_nan_bits = sizeof(W) == 4 ? W(0x7fc0'0000u) : W(0x7ff8'0000'0000'0000ull);

//! One unsigned word per class of equivalent keys, whose `<` is the keys' ascending order: -0.0
//! takes +0.0's word and every NaN the positive quiet NaN's, so that equal words mean equivalent
//! keys, and int32's word has its sign bit flipped. Record sorts compare these (or their halves)
//! as unsigned bits to keep equivalent keys in input order (stable), where ordered_word would
//! order -0.0 before +0.0 and NaNs by their bits.
template <class Key>
BITONIC_HOST_DEVICE std::make_unsigned_t<typename ordered_word<Key>::type> class_word(Key k) {
  if constexpr (std::is_floating_point_v<Key>) {
    constexpr auto quiet_nan = quiet_nan_bits<typename ordered_word<Key>::type>;
    if (k != k) std::memcpy(&k, &quiet_nan, sizeof k);
    if (k == Key(0)) k = Key(0);
  }
  return unsigned_word(k);
}

//! The word of a value read from memory that holds either keys of type Key or their words
//! (plans with several passes may keep words between them: only the first encodes, the last
//! decodes). For keys that are their own words both are the same type and nothing changes.
template <class Key, class Stored>
BITONIC_HOST_DEVICE typename ordered_word<Key>::type word_of(Stored v) {
  using W = typename ordered_word<Key>::type;
  static_assert(std::is_same_v<Stored, Key> || std::is_same_v<Stored, W>, "a key or its word");
  if constexpr (std::is_same_v<Stored, Key>) {
    return ordered_word<Key>::encode(v);
  } else {
    return v;
  }
}

//! What memory of type Stored (Key, or its word) holds for word w: the inverse of word_of.
template <class Key, class Stored>
BITONIC_HOST_DEVICE Stored stored_of(typename ordered_word<Key>::type w) {
  using W = typename ordered_word<Key>::type;
  static_assert(std::is_same_v<Stored, Key> || std::is_same_v<Stored, W>, "a key or its word");
  if constexpr (std::is_same_v<Stored, Key>) {
    return ordered_word<Key>::decode(w);
  } else {
    return w;
  }
}

//! The bits of the key whose word is w, in a word: what a pass that holds words stores where it
//! learns only at run time that it is the last one, which writes keys (a split's buckets each end
//! at a merge of their own, kernels::key_rows::bucket_step).
template <class Key>
BITONIC_HOST_DEVICE typename ordered_word<Key>::type key_bits(typename ordered_word<Key>::type w) {
  using W = typename ordered_word<Key>::type;
  if constexpr (std::is_same_v<Key, W>) {
    return w;
  } else {
    static_assert(sizeof(Key) == sizeof(W), "a key and its word are the same size");
    const Key k = ordered_word<Key>::decode(w);
    W bits;
    std::memcpy(&bits, &k, sizeof bits);
    return bits;
  }
}

//! `less` on the words of what memory holds (Key or its word), so that a search over stored keys
//! compares them as the kernels compare their registers.
template <class Key, class Less>
struct word_less {
  Less less;
  template <class Stored>
  BITONIC_HOST_DEVICE bool operator()(const Stored& x, const Stored& y) const {
    return less(word_of<Key>(x), word_of<Key>(y));
  }
};

//! A key of 4 or 8 bytes sorted under a caller's comparator (bitonic.cuh), held as an unsigned
//! integer of its bits: the kernels move it with one load or store (a struct of two int32 fields
//! was moved field by field, doubling the loads), and its ordered_word is itself (a float under a
//! caller's order is not ordered by its word). Same size as Key, aligned to it: arrays of keys
//! aligned to their size are sorted as arrays of these.
template <class Key>
struct caller_key {
  static_assert(sizeof(Key) == 4 || sizeof(Key) == 8, "keys of 4 or 8 bytes");
  std::conditional_t<sizeof(Key) == 4, std::uint32_t, std::uint64_t> bits;
  BITONIC_HOST_DEVICE Key key() const {
    Key k;
    std::memcpy(&k, &bits, sizeof k);
    return k;
  }
};
static_assert(sizeof(caller_key<double>) == sizeof(double), "a caller_key is its key");

//! A caller's strict weak order on keys, for the kernels on caller_key (descending when
//! Reversed). Kernels that pad with the greatest word (register_tile::pad) have no such word
//! under it and pad with the greatest key they hold instead (kernels/greatest_pad.cuh). Splits:
//! whether its plans may split the keys into buckets first (false for positions compared through
//! the keys they point at, whose plans never do: their kernels are not instantiated).
template <class Less, bool Reversed = false, bool Splits = true>
struct caller_order {
  Less less;
  // `less` may be callable on the device only (a __device__ lambda); so is this, in effect.
#ifdef __CUDACC__
#pragma nv_exec_check_disable
#endif
  template <class Key>
  BITONIC_HOST_DEVICE bool operator()(const caller_key<Key>& a, const caller_key<Key>& b) const {
    return Reversed ? less(b.key(), a.key()) : less(a.key(), b.key());
  }
};

template <class Less>
inline constexpr bool is_caller_order_v = false;
template <class Less, bool Reversed, bool Splits>
inline constexpr bool is_caller_order_v<caller_order<Less, Reversed, Splits>> = true;

//! Whether plans under the order `Less` may start with a split (the library's orders: yes).
template <class Less>
inline constexpr bool splits_keys_v = true;
template <class Less, bool Reversed>
inline constexpr bool splits_keys_v<caller_order<Less, Reversed, false>> = false;

}  // namespace bitonic
