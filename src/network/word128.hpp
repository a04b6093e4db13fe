// The 16-byte word of a record of an 8-byte key and an 8-byte value or position
// (kernels/record_io.cuh): the key's word in the high half, so that `<` orders records by key,
// then by value. An unsigned 128-bit integer without the compiler's __int128, which the strict
// C++20 the project builds with leaves out of the standard type traits. The kernels need of a
// word only what this has: zero, all ones (~), XOR and `<`.
#pragma once

#include <cstdint>

#include "bitonic/order.hpp"  // BITONIC_HOST_DEVICE

namespace bitonic {

struct alignas(16) word128 {  // 16-byte loads and stores
  std::uint64_t lo;           //!< first in memory, as a little-endian 128-bit integer lies
  std::uint64_t hi;

  word128() = default;  // trivial, as the kernels' __shared__ arrays of words need
  //! A small constant: W(0) in the kernels.
  BITONIC_HOST_DEVICE constexpr explicit word128(unsigned value) : lo(value), hi(0) {}
  BITONIC_HOST_DEVICE constexpr word128(std::uint64_t high, std::uint64_t low)
      : lo(low), hi(high) {}

  BITONIC_HOST_DEVICE constexpr word128 operator~() const { return {~hi, ~lo}; }
  BITONIC_HOST_DEVICE constexpr word128 operator^(const word128& o) const {
    return {hi ^ o.hi, lo ^ o.lo};
  }
  BITONIC_HOST_DEVICE constexpr word128& operator^=(const word128& o) {
    hi ^= o.hi;
    lo ^= o.lo;
    return *this;
  }
  //! Without short circuits: a branch a comparison costs the networks more than the two
  //! comparisons it could skip.
  BITONIC_HOST_DEVICE friend constexpr bool operator<(const word128& a, const word128& b) {
    return (a.hi < b.hi) | ((a.hi == b.hi) & (a.lo < b.lo));
  }
  BITONIC_HOST_DEVICE friend constexpr bool operator==(const word128& a, const word128& b) {
    return (a.hi == b.hi) & (a.lo == b.lo);
  }
};

static_assert(sizeof(word128) == 16, "two 64-bit halves");

}  // namespace bitonic
