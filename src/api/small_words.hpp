// What the word sorts of 1- and 2-byte keys share (api/small_keys.cpp, api/small_segments.cpp):
// the options of the sort of their words, and the bound of their 64-bit stable words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "api/workspace.hpp"
#include "bitonic/bitonic.hpp"

namespace bitonic::api {

//! The options of the sort of small keys' words, on `bytes` of scratch at `at` (none: the
//! library's pool): the caller's algorithm and stream; the caller's direction for 32-bit words,
//! ascending for 64-bit stable words (their class is complemented when descending); not stable
//! (the words are unique, or equal only for identical keys; the record forms are stable anyway).
inline options word_sort_options(const options& opt, bool stable_words, std::byte* at = nullptr,
                                 std::size_t bytes = 0) {
  options words = on_scratch(opt, at, bytes);
  words.stable = false;
  if (stable_words) words.direction = order::ascending;
  return words;
}

//! Stable words carry positions of 32 bits: at most 2^32 keys.
inline void require_stable_positions(std::uint64_t n, const char* caller) {
  if (n > (std::uint64_t{1} << 32)) {
    throw error(std::string(caller) + ": n = " + std::to_string(n) +
                " is more than the 2^32 keys a stable sort of __half or __nv_bfloat16 keys takes");
  }
}

}  // namespace bitonic::api
