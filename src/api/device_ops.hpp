// Device operations that host-only code (sort_host) needs beyond the public sort; defined with the
// kernels in api/sort_gpu.cuh and instantiated per key type. Both enqueue work on a stream and
// return without waiting for it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "bitonic/bitonic.hpp"

namespace bitonic::dispatch {

//! Enqueues the merge of sorted d_a[0, a_count) and d_b[0, b_count) into d_out on `stream`; keys
//! of a go before equal keys of b.
template <class Key>
void merge_on_device(const Key* d_a, std::size_t a_count, const Key* d_b, std::size_t b_count,
                     Key* d_out, order direction, cudaStream_t stream);

//! Finishes sorting d_keys[0, n) (opt: order, algorithm, stream) when every aligned block of
//! 2^sorted_log2 keys is sorted already: runs only the network's stages above sorted_log2, so
//! sort_host can sort blocks while the rest of the keys are still on their way. The algorithm
//! must be a network (not block_merge); the blocks must be sorted in opt.direction.
template <class Key>
void sort_sorted_blocks(Key* d_keys, std::size_t n, unsigned sorted_log2, const options& opt);

}  // namespace bitonic::dispatch
