// bitonic.cuh: the sort under a caller's comparator, as templates for nvcc users. Any trivially
// copyable key (a struct of several fields, a custom collation) and any strict weak order
// callable on the device: a functor with a __device__ operator(), or an extended __device__
// lambda (nvcc --extended-lambda). Include it in a .cu file and link the CMake target
// bitonic::templates (the library plus the headers of its kernels). The library's own key types
// and orders need only bitonic.hpp.
//
// Keys of 4 and 8 bytes run on the optimized kernels themselves: a first pass that sorts tiles of
// 2^14 (4-byte) or 2^13 (8-byte) keys in registers, then one bitonic merge pass a doubling of the
// sorted runs, out of place; from 2^24 (4-byte) or 2^23 (8-byte) keys the keys are first split
// into buckets by a sorted sample (and those cut again into sub-buckets of about a tile from 2^26
// and 2^24), so that each bucket takes the first pass and few merges, as the library's own key
// types do. Keys of other sizes, stable sorts and sort_pairs sort 4-byte positions on the first
// pass and merges, each comparison reading the two keys it compares, then move the keys (and
// values) into that order: slower, since those reads are scattered.
#pragma once

#include <cstddef>
#include <type_traits>

#include "api/caller_sort.cuh"  // the implementation: the api layer's, over the kernels
#include "bitonic/bitonic.hpp"

namespace bitonic {

//! A comparator for the templates below: a class type (functor or lambda), so that the library's
//! own overloads, whose third argument is an `options`, stay apart.
template <class Less>
concept comparator = std::is_class_v<Less> && !std::is_same_v<std::remove_cvref_t<Less>, options>;

//! Sorts d_keys[0, n) in place so that no key is followed by one `less` orders before it
//! (opt.direction = descending: by less(b, a)).
//!
//! Preconditions: d_keys is device (or managed) memory of the current device, aligned to the key's
//! size for keys of 4 and 8 bytes (as cudaMalloc's memory is); `less` is a strict
//! weak order on Key callable on the device as less(const Key&, const Key&) -> bool, and
//! trivially copyable (it is passed to the kernels by value). Not stable unless opt.stable (then
//! equal keys keep their input order; it sorts positions, see below). Asynchronous on opt.stream,
//! like bitonic::sort, and with the same memory rules: scratch from opt.workspace (size from
//! workspace_bytes(n, less, opt)) or the library's pool; errors throw bitonic::error before any
//! key moves.
//! Complexity: O(n log^2 t + n log(n / t)) comparisons for tiles of t keys (2^13..2^14); one pass
//! over the keys for the tiles and one a doubling of the sorted runs, or, from 2^24 (4-byte) and
//! 2^23 (8-byte) keys, a split into buckets by a sample first (reads the keys twice and writes
//! them once, twice where refined), after which the buckets take few doublings. Keys of 4 or 8
//! bytes are sorted themselves; other sizes and stable sorts sort 4-byte positions (up to 2^32
//! keys), reading the keys they compare, and then gather the keys (n keys of staging).
//! Speed: write `less` without short circuits where its operands are cheap (`(a.x < b.x) |
//! ((a.x == b.x) & (a.y < b.y))`): nvcc compiles each `||` and `&&` into a branch per
//! comparison, which made a two-field order 1.5x slower at 2^26 keys (README).
template <class Key, comparator Less>
void sort(Key* d_keys, std::size_t n, Less less, const options& opt = {}) {
  api::sort_under<Key, void>(d_keys, nullptr, n, less, opt, "bitonic::sort",
                             "bitonic::workspace_bytes(n, less, opt)");
}

//! Sorts the pairs (d_keys[i], d_values[i]) by key under `less`, as sort(d_keys, n, less, opt)
//! sorts keys; each value moves with its key (as bits: any trivially copyable Value). Not stable
//! unless opt.stable. Runs as a sort of positions (up to 2^32 pairs), then gathers keys and
//! values. Scratch: pairs_workspace_bytes<Key, Value>(n, less, opt).
template <class Key, class Value, comparator Less>
void sort_pairs(Key* d_keys, Value* d_values, std::size_t n, Less less, const options& opt = {}) {
  api::sort_under(d_keys, d_values, n, less, opt, "bitonic::sort_pairs",
                  "bitonic::pairs_workspace_bytes(n, less, opt)");
}

//! Bytes of workspace sort(d_keys, n, less, opt) needs (0 for n < 2). Throws bitonic::error
//! without a device.
template <class Key, comparator Less>
std::size_t workspace_bytes(std::size_t n, Less, const options& opt = {}) {
  return api::caller_workspace_bytes<Key, void>(n, opt, "bitonic::workspace_bytes");
}

//! Bytes of workspace sort_pairs(d_keys, d_values, n, less, opt) needs (0 for n < 2).
template <class Key, class Value, comparator Less>
std::size_t pairs_workspace_bytes(std::size_t n, Less, const options& opt = {}) {
  return api::caller_workspace_bytes<Key, Value>(n, opt, "bitonic::pairs_workspace_bytes");
}

}  // namespace bitonic
