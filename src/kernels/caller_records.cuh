// Sorts under a caller's order of what the key sort cannot hold in registers (keys of other than
// 4 or 8 bytes, stable sorts, values beside keys) sort 4-byte positions instead, compared
// through the keys they point at (by_position), then move keys and values by those positions:
// one gather a pass. Slower than the key sort (every comparison reads two keys from memory), but
// any trivially copyable key and value works.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/launch.cuh"
#include "network/network.hpp"

namespace bitonic::kernels::caller_records {

using network::index_t;
using position = std::uint32_t;

//! Threads of a block of the kernels here (grid-stride loops).
inline constexpr unsigned block_threads = 256;

//! The caller's order on positions into `keys` (descending when `reversed`); where `stable`, equal
//! keys are ordered by position, which makes the order total.
template <class Key, class Less>
struct by_position {
  const Key* keys;
  Less less;
  bool reversed;
  bool stable;
  __device__ bool operator()(position i, position j) const {
    const Key a = keys[i], b = keys[j];
    if (reversed ? less(b, a) : less(a, b)) return true;
    return stable && i < j && !(reversed ? less(a, b) : less(b, a));
  }
};

template <class Position>  // a template, so that every translation unit may have it
__global__ void __launch_bounds__(block_threads) positions_kernel(Position* out, index_t n) {
  for (index_t i = index_t{blockIdx.x} * block_threads + threadIdx.x; i < n;
       i += index_t{gridDim.x} * block_threads)
    out[i] = Position(i);
}

//! out[i] = in[from[i]] for i < n.
template <class T>
__global__ void __launch_bounds__(block_threads)
    gather_kernel(const T* in, const position* from, T* out, index_t n) {
  for (index_t i = index_t{blockIdx.x} * block_threads + threadIdx.x; i < n;
       i += index_t{gridDim.x} * block_threads)
    out[i] = in[from[i]];
}

inline void launch_positions(position* out, index_t n, cudaStream_t stream) {
  launch_plain(positions_kernel<position>, grid_blocks(n, block_threads), block_threads, stream,
               "caller_records positions_kernel launch", out, n);
}

//! data[0, n) = its own elements in the order `from` gives, through `staging` (n elements).
template <class T>
void permute(T* data, const position* from, T* staging, index_t n, cudaStream_t stream) {
  launch_plain(gather_kernel<T>, grid_blocks(n, block_threads), block_threads, stream,
               "caller_records gather_kernel launch", static_cast<const T*>(data), from, staging,
               n);
  check_cuda(cudaMemcpyAsync(data, staging, n * sizeof(T), cudaMemcpyDeviceToDevice, stream),
             "caller_records cudaMemcpyAsync");
}

}  // namespace bitonic::kernels::caller_records
