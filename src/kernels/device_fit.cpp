#include "kernels/device_fit.hpp"

#include <algorithm>

#include "kernels/tuning.hpp"
#include "runtime/device.hpp"

namespace bitonic::kernels {

unsigned cluster_sort_stages(std::size_t key_bytes) {
  using clusters = tuning::cluster_sort<4>;
  const unsigned most = tuning::cluster_sort_log2_max(key_bytes);
  if (most == 0) return 0;
  const unsigned blocks = runtime::cluster_blocks_max(clusters::block_threads,
                                                      runtime::one_block_per_multiprocessor_smem());
  unsigned cluster_log2 = 0;
  while (cluster_log2 < most && (2u << cluster_log2) <= blocks)
    ++cluster_log2;
  return cluster_log2 == 0 ? 0 : clusters::block_log2 + cluster_log2;
}

unsigned resident_tiles(std::size_t key_bytes) {
  if (!runtime::launches_cooperative()) return 0;
  constexpr std::size_t system_smem_per_block = 1024;  // what the system keeps of an SM's
  const std::size_t tile_smem = tuning::optimized_tile_smem_bytes(key_bytes);
  static_assert(tuning::optimized<4>::tile_min_blocks == tuning::optimized<8>::tile_min_blocks,
                "one count of tiles an SM for both key sizes");
  const std::size_t per_sm = std::min<std::size_t>(
      tuning::optimized<4>::tile_min_blocks,
      runtime::shared_memory_per_multiprocessor() / (tile_smem + system_smem_per_block));
  return unsigned(per_sm) * runtime::multiprocessor_count();
}

}  // namespace bitonic::kernels
