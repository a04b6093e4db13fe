// Record sorts (records.cu): argsort, sort_pairs and the stable key sort, all one stable argsort
// on the 8-byte key sort (kernels/records.cuh says how) followed by gathers.
#pragma once

#include <cstddef>

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

}  // namespace bitonic::api
