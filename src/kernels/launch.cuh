// Grid sizing shared by the kernels: every kernel loops grid-stride (64-bit indices), so the grid
// only has to be large enough to fill the device, never as large as the work.
#pragma once

#include "bitonic/network.hpp"

namespace bitonic::kernels {

//! Blocks for `items` work items of `per_block` each, capped; kernels loop over the remainder.
inline unsigned grid_blocks(network::index_t items, network::index_t per_block) {
  constexpr network::index_t max_blocks = network::index_t{1} << 20;
  const network::index_t blocks = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks < max_blocks ? blocks : max_blocks));
}

}  // namespace bitonic::kernels
