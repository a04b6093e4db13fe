// The orders keys are sorted by: a strict weak order per key type, usable on host and device (and
// by callers that check or compare sorted keys the way the library sorts them).
//
// Floating-point keys (float, double, and CUDA's 2-byte __half and __nv_bfloat16) use a total
// order in which NaN is greater than every number (all NaNs are equivalent) and -0.0 is equivalent
// to +0.0. Plain `<` is not a strict weak order once NaNs are present, and a sorting network fed
// with it loses its guarantee.
#pragma once

#include <cstring>
#include <type_traits>

#if defined(__CUDACC__)
#define BITONIC_HOST_DEVICE __host__ __device__
#else
#define BITONIC_HOST_DEVICE
#endif

// CUDA's 2-byte floating-point types, declared as <cuda_fp16.h> and <cuda_bf16.h> declare them
// (include those to make and read their values).
struct __half;
struct __nv_bfloat16;

namespace bitonic {

//! True for CUDA's 2-byte floating-point key types, __half and __nv_bfloat16, which
//! std::is_floating_point does not count: ordered like float (NaN last, -0.0 equal to +0.0).
template <class Key>
inline constexpr bool is_half_float_v =
    std::is_same_v<Key, ::__half> || std::is_same_v<Key, ::__nv_bfloat16>;

namespace detail {
//! A 2-byte float's rank in ascending_less as an int: the sign and magnitude of its bits as a
//! signed number (so -0.0 and +0.0 are both 0), every NaN above +inf.
template <class Key>
BITONIC_HOST_DEVICE int half_float_rank(const Key& k) {
  static_assert(sizeof(Key) == 2, "a 2-byte float");
  unsigned short bits;
  std::memcpy(&bits, &k, sizeof bits);
  constexpr int infinity = std::is_same_v<Key, ::__half> ? 0x7c00 : 0x7f80;
  const int magnitude = bits & 0x7fff;
  if (magnitude > infinity) return 0x8000;  // NaN: exponent all ones, mantissa not zero
  return (bits & 0x8000) != 0 ? -magnitude : magnitude;
}
}  // namespace detail

//! Ascending order: integers by `<`, floating point with NaN last.
struct ascending_less {
  static constexpr bool reverses = false;  //!< on integers: `<`
  template <class Key>
  BITONIC_HOST_DEVICE constexpr bool operator()(const Key& a, const Key& b) const {
    if constexpr (std::is_floating_point_v<Key>) {
      return a < b || (b != b && a == a);  // b is NaN and a is not
    } else if constexpr (is_half_float_v<Key>) {
      return detail::half_float_rank(a) < detail::half_float_rank(b);
    } else {
      return a < b;
    }
  }
};

//! Descending order: the mirror image of ascending_less (NaN first).
struct descending_less {
  static constexpr bool reverses = true;  //!< on integers: `>`
  template <class Key>
  BITONIC_HOST_DEVICE constexpr bool operator()(const Key& a, const Key& b) const {
    return ascending_less{}(b, a);
  }
};

}  // namespace bitonic
