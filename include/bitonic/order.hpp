// The orders keys are sorted by: a strict weak order per key type, usable on host and device (and
// by callers that check or compare sorted keys the way the library sorts them).
//
// Floating-point keys use a total order in which NaN is greater than every number (all NaNs are
// equivalent) and -0.0 is equivalent to +0.0. Plain `<` is not a strict weak order once NaNs are
// present, and a sorting network fed with it loses its guarantee.
#pragma once

#include <type_traits>

#if defined(__CUDACC__)
#define BITONIC_HOST_DEVICE __host__ __device__
#else
#define BITONIC_HOST_DEVICE
#endif

namespace bitonic {

//! Ascending order: integers by `<`, floating point with NaN last.
struct ascending_less {
  static constexpr bool reverses = false;  //!< on integers: `<`
  template <class Key>
  BITONIC_HOST_DEVICE constexpr bool operator()(const Key& a, const Key& b) const {
    if constexpr (std::is_floating_point_v<Key>) {
      return a < b || (b != b && a == a);  // b is NaN and a is not
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
