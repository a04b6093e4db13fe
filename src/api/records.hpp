// Record sorts (records.cu): argsort, sort_pairs and the stable key sort, all one stable argsort
// on the 8-byte key sort (kernels/records.cuh says how) followed by gathers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bitonic/bitonic.hpp"

namespace bitonic::api {

//! sort() with opt.stable for float and double keys (whose equivalent keys can differ in bits):
//! an argsort, then the keys gathered; sort_batched's in arrays of array_size keys unless that is
//! 0. Arguments already checked, n >= 2.
template <class Key>
void stable_sort_keys(Key* d_keys, std::size_t n, const options& opt, std::size_t array_size = 0);

//! Workspace bytes of stable_sort_keys for n >= 2 keys.
template <class Key>
std::size_t stable_sort_workspace_bytes(std::size_t n, const options& opt,
                                        std::size_t array_size = 0);

//! An argsort's sorted record words (kernels/records.cuh): word i's low half is the position of
//! the i-th key in sorted order, read through `through` unless that is null (8-byte keys).
struct sorted_words {
  const std::uint64_t* words;
  const std::uint32_t* through;
};

//! Scratch bytes (alignment slack included) of argsort_words for n >= 2 keys of Key.
template <class Key>
std::size_t argsort_words_bytes(std::size_t n, std::size_t array_size, const options& opt);

//! The stable argsort of d_keys[0, n) in opt.direction, each array of array_size keys on its own
//! (0: as one array), left as record words in `scratch` (argsort_words_bytes, aligned to
//! workspace_alignment) on opt.stream; loads every kernel it launches before the first runs.
//! Arguments already checked, n >= 2, n <= 2^32.
template <class Key>
sorted_words argsort_words(const Key* d_keys, std::size_t n, std::size_t array_size,
                           const options& opt, std::byte* scratch);

}  // namespace bitonic::api
