// Device operations that host-only code (sort_host) needs beyond the public sort; defined with the
// kernels in api/sort_gpu.cuh and instantiated per key type. Both enqueue work on a stream and
// return without waiting for it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "bitonic/bitonic.hpp"

namespace bitonic::dispatch {

//! Enqueues the merge of the sorted runs d_runs[0, a_count) and d_runs[a_count, n) into
//! d_out[0, n) (another buffer) on `stream`, keys of the first run before equal keys of the
//! second; d_splits: merge_split_bytes<Key>(n) bytes of device memory, 8-byte aligned.
template <class Key>
void merge_on_device(const Key* d_runs, std::size_t a_count, std::size_t n, Key* d_out,
                     void* d_splits, order direction, cudaStream_t stream);

//! Device memory merge_on_device needs besides its keys, for n keys.
template <class Key>
std::size_t merge_split_bytes(std::size_t n);

//! Merges the sorted aligned runs of 2^sorted_log2 keys of d_keys[0, n) (sorted in `direction`)
//! into one sorted array: the merge plan's stages sorted_log2 + 1 .. ceil_log2(n), each one
//! streaming pass from one buffer into the other (d_scratch: n keys, apart from d_keys), on
//! `stream`; d_splits: merge_split_bytes<Key>(n) bytes, 8-byte aligned. Returns the buffer that
//! holds the result, d_keys or d_scratch.
template <class Key>
Key* merge_sorted_runs(Key* d_keys, Key* d_scratch, void* d_splits, std::size_t n,
                       unsigned sorted_log2, order direction, cudaStream_t stream);

//! Finishes sorting d_keys[0, n) (opt: order, algorithm, stream) when every aligned block of
//! 2^sorted_log2 keys is sorted already: runs only the network's stages above sorted_log2, so
//! sort_host can sort blocks while the rest of the keys are still on their way. The algorithm
//! must be a network (not block_merge); the blocks must be sorted in opt.direction.
template <class Key>
void sort_sorted_blocks(Key* d_keys, std::size_t n, unsigned sorted_log2, const options& opt);

}  // namespace bitonic::dispatch
