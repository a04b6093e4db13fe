// Device operations that host-only code (sort_host) needs beyond the public sort; defined with the
// kernels in api/sort_gpu.cuh and instantiated per key type.
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

}  // namespace bitonic::dispatch
