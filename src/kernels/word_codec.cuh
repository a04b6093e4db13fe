// Keys of one size as unsigned words, with the key type's map known at run time (rows.hpp's
// word_map), so that kernels that only sort words are compiled once per key size.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/rows.hpp"
#include "network/key_order.hpp"

namespace bitonic::kernels::rows {

//! The words of keys of W's size under one map and order.
template <class W>
struct word_codec {
  static_assert(std::is_same_v<W, std::uint32_t> || std::is_same_v<W, std::uint64_t>,
                "4- and 8-byte unsigned words");
  using Float = std::conditional_t<sizeof(W) == 4, float, double>;
  using Signed = std::make_signed_t<W>;
  word_map map;
  W complement;  //!< all ones when descending

  __device__ W encode(W bits) const {
    W word = bits;
    if (map == word_map::signed_bits) {
      word = unsigned_word(Signed(bits));
    } else if (map == word_map::float_bits) {
      Float f;
      std::memcpy(&f, &bits, sizeof f);
      word = unsigned_word(f);
    }
    return word ^ complement;
  }
  __device__ W decode(W word) const {
    word ^= complement;
    if (map == word_map::signed_bits) return W(from_unsigned_word<Signed>(word));
    if (map == word_map::float_bits) {
      const Float f = from_unsigned_word<Float>(word);
      W bits;
      std::memcpy(&bits, &f, sizeof bits);
      return bits;
    }
    return word;
  }

  //! The word of the class of equivalent keys of `bits` (key_order.hpp's class_word, complemented
  //! when descending): -0.0 takes +0.0's word and every NaN one word, so that a sort of these
  //! words with positions as ties is stable; integers' words are their unsigned_word.
  __device__ W encode_class(W bits) const {
    if (map == word_map::float_bits) {
      Float f;
      std::memcpy(&f, &bits, sizeof f);
      return class_word(f) ^ complement;
    }
    return encode(bits);
  }
  //! Whether `word` (from encode_class) stands for keys of several bit patterns, which decode
  //! cannot tell apart: the zeros' class (-0.0, +0.0) and the NaNs'.
  __device__ bool class_of_several(W word) const {
    if (map != word_map::float_bits) return false;
    // Two words known at compile time but for the complement: a comparison each, no decoding
    // (record stores are bound by their instructions).
    return word == encode_class(W(0)) || word == encode_class(quiet_nan_bits<W>);
  }
};

}  // namespace bitonic::kernels::rows
