// Record sorts (records.cu): argsort, sort_pairs and the stable key sort, all one stable argsort
// on the 8-byte key sort (kernels/records.cuh says how) followed by gathers; and the checks of
// their arguments, which the 1- and 2-byte keys' record sorts (small_records.cpp) share.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "api/options.hpp"
#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "runtime/device.hpp"

namespace bitonic {
namespace kernels {
struct record_io;
struct wide_record_io;
}  // namespace kernels

namespace api {

//! Sorts the n records of `io` (4-byte keys with 4-byte values or positions, as 64-bit words:
//! kernels/record_io.cuh) ascending by their words, reading and writing them in io's arrays,
//! where the plan for n words starts with the split (dispatch::record_plan_io). `words` holds n
//! words of scratch, and opt is the word sort's (ascending; its workspace, if any, sized by
//! workspace_bytes<std::uint64_t>). Loads every kernel it launches before the first runs.
//! Returns false, having enqueued nothing, where that plan does not split (the caller then packs
//! the words and sorts them). Defined in sort_u64.cu, with the word sort.
bool sort_records_as_words(const kernels::record_io& io, std::uint64_t* words, std::size_t n,
                           const options& opt, const char* caller);

//! Whether n records of 8-byte keys, with values or (`positions`: an argsort's) with their
//! positions, sort as 16-byte words (kernels/record_io.cuh's wide_record_io) under opt: from
//! tuning::wide_records' counts, with the optimized kernels (opt.algo automatic or optimized) on
//! a device whose blocks hold their tiles. Defined in sort_w128.cu, with that sort.
bool sorts_as_wide_records(std::size_t n, bool positions, const options& opt);

//! Workspace bytes of sort_wide_records for n records, alignment slack included.
std::size_t wide_records_bytes(std::size_t n);

//! Sorts the n records of `io` ascending by their 16-byte words, reading and writing them in io's
//! arrays, on `stream`; `scratch` holds wide_records_bytes(n). Loads every kernel it launches
//! before the first runs. Defined in sort_w128.cu.
void sort_wide_records(const kernels::wide_record_io& io, std::size_t n, std::byte* scratch,
                       cudaStream_t stream);

//! Positions are 32 bits in the words, so a record sort takes at most 2^32 keys.
inline void require_positions(std::size_t n, const char* caller) {
  if (n > (std::size_t{1} << 32)) {
    throw error(std::string(caller) + ": n = " + std::to_string(n) +
                " is more than the 2^32 records a record sort takes");
  }
}

//! The checks of a batched record form before its arrays: options, an algorithm with a batched
//! form, num_arrays * array_size within size_t and within 2^32 records. Returns that count.
inline std::size_t batched_record_count(std::size_t num_arrays, std::size_t array_size,
                                        const options& opt, const char* caller) {
  validate(opt, caller);
  require_batched_algorithm(opt, caller);
  const std::size_t n = batch_keys(num_arrays, array_size, caller);
  require_positions(n, caller);
  return n;
}

//! The argsort of n arrays of one key each: every index 0, the keys copied to d_sorted_keys
//! unless that is null; on `stream`.
template <class Key, class Index>
void argsort_of_single_keys(const Key* d_keys, Key* d_sorted_keys, Index* d_indices, std::size_t n,
                            cudaStream_t stream) {
  BITONIC_CUDA_CHECK(cudaMemsetAsync(d_indices, 0, n * sizeof(Index), stream));
  if (d_sorted_keys != nullptr) {
    BITONIC_CUDA_CHECK(
        cudaMemcpyAsync(d_sorted_keys, d_keys, n * sizeof(Key), cudaMemcpyDeviceToDevice, stream));
  }
}

//! The checks of a record sort's two device arrays of n elements each: device memory of the
//! current device, and apart.
template <class Key, class Second>
void require_record_arrays(const Key* d_keys, const Second* d_second, std::size_t n,
                           const char* caller, const char* second) {
  runtime::require_device_range(d_keys, n, sizeof(Key), alignof(Key), caller, "d_keys");
  runtime::require_device_range(d_second, n, sizeof(Second), alignof(Second), caller, second);
  require_apart(d_keys, n * sizeof(Key), d_second, n * sizeof(Second), caller,
                (std::string("d_keys and ") + second).c_str());
}

//! The checks of an argsort's optional sorted keys (null: none): device memory of the current
//! device for n keys, apart from the keys and the indices.
template <class Key, class Index>
void require_sorted_keys(const Key* d_keys, const Key* d_sorted_keys, const Index* d_indices,
                         std::size_t n, const char* caller) {
  if (d_sorted_keys == nullptr) return;
  runtime::require_device_range(d_sorted_keys, n, sizeof(Key), alignof(Key), caller,
                                "d_sorted_keys");
  require_apart(d_keys, n * sizeof(Key), d_sorted_keys, n * sizeof(Key), caller,
                "d_keys and d_sorted_keys");
  require_apart(d_indices, n * sizeof(Index), d_sorted_keys, n * sizeof(Key), caller,
                "d_indices and d_sorted_keys");
}

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

}  // namespace api
}  // namespace bitonic
