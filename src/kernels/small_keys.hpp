// The small kernels around the word sorts of 1- and 2-byte keys (kernels/small_keys.cuh), compiled
// once in kernels/small_keys.cu for every small key type and word, element size and index type:
// the entry points that use them (api/small_*.cu, api/small_*.cpp) carry no device code.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "network/network.hpp"

namespace bitonic::kernels::small_keys {

using network::index_t;

//! words[i] = the word of keys[i], i < n: small_word (small_class_word where `by_class`) for
//! std::uint32_t words; stable_half_word (position i, complemented class when `descending`) for
//! std::uint64_t words (__half and __nv_bfloat16 only). On `stream`.
template <class Key, class Word>
void widen(const Key* keys, Word* words, index_t n, bool descending, bool by_class,
           cudaStream_t stream);

//! keys[i] = the key of words[i], i < n: the inverse of widen's map (not of class words).
template <class Key, class Word>
void narrow(const Word* words, Key* keys, index_t n, cudaStream_t stream);

//! out[i] = in[(i / out_row) * in_row + order[i]] for i < n (rows of out_row outputs, each from
//! a row of in_row inputs; out_row 0: one row), elements moved as Bits (std::uint8_t ..
//! std::uint64_t) through indices of Index (std::uint32_t or std::uint64_t). On `stream`.
template <class Bits, class Index>
void gather(const Index* order, const Bits* in, Bits* out, index_t n, index_t out_row,
            index_t in_row, cudaStream_t stream);

//! Loads widen and narrow for Key and Word (and sets their attributes) without launching them,
//! so that a kernel CUDA cannot load fails a call before any output changes.
template <class Key, class Word>
void load_words();

//! Loads gather for Bits and Index without launching it.
template <class Bits, class Index>
void load_gather();

}  // namespace bitonic::kernels::small_keys
