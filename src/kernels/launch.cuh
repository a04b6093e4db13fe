// Grid sizing shared by the kernels: every kernel loops grid-stride (64-bit indices), so the grid
// only has to be large enough to fill the device, never as large as the work.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "bitonic/network.hpp"
#include "host/cuda_check.hpp"

namespace bitonic::kernels {

//! Blocks for `items` work items of `per_block` each, capped; kernels loop over the remainder.
inline unsigned grid_blocks(network::index_t items, network::index_t per_block) {
  constexpr network::index_t max_blocks = network::index_t{1} << 20;
  const network::index_t blocks = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks < max_blocks ? blocks : max_blocks));
}

//! In a kernel: calls run(tile_base, tile_n, full) for every tile of TileKeys consecutive keys of
//! keys[0, n) this block owns (grid-stride), where `full` is std::true_type for whole tiles and
//! std::false_type for the last, partial one, so each gets its own instantiation.
template <unsigned TileKeys, class Run>
__device__ void for_each_tile(network::index_t n, Run run) {
  const network::index_t tiles = (n + TileKeys - 1) / TileKeys;
  for (network::index_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const network::index_t base = t * TileKeys;
    if (base + TileKeys <= n) {
      run(base, TileKeys, std::true_type{});
    } else {
      run(base, unsigned(n - base), std::false_type{});
    }
  }
}

//! Lets `Kernel` use `bytes` of dynamic shared memory (beyond the default 48 KiB). The setting
//! belongs to each device's context, so it is made once per device, not once per process.
template <auto Kernel>
void allow_dynamic_shared_memory(std::size_t bytes, const char* what) {
  static std::atomic<std::uint64_t> devices_done{0};
  int device = 0;
  host::check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  const std::uint64_t bit = device < 64 ? std::uint64_t{1} << device : 0;
  if ((devices_done.load(std::memory_order_relaxed) & bit) != 0) return;
  host::check_cuda(
      cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)), what);
  devices_done.fetch_or(bit, std::memory_order_relaxed);
}

}  // namespace bitonic::kernels
