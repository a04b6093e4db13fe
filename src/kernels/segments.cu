#include <cstdint>

#include "kernels/segment_bins.cuh"
#include "kernels/segment_tiles.cuh"
#include "kernels/segments.hpp"

namespace bitonic::kernels::segments {

void count(const void* offsets, std::size_t offset_bytes, index_t segments, bool singles,
           counters* out, long_segment* long_list, index_t long_capacity, cudaStream_t stream) {
  if (offset_bytes == 4) {
    launch_count(static_cast<const std::uint32_t*>(offsets), segments, singles, out, long_list,
                 long_capacity, stream);
  } else {
    launch_count(static_cast<const std::uint64_t*>(offsets), segments, singles, out, long_list,
                 long_capacity, stream);
  }
}

void bin(const void* offsets, std::size_t offset_bytes, index_t segments, bool singles,
         const tile_map& map, counters* cursors, bins out, cudaStream_t stream) {
  if (offset_bytes == 4) {
    launch_bin(static_cast<const std::uint32_t*>(offsets), segments, singles, map, cursors, out,
               stream);
  } else {
    launch_bin(static_cast<const std::uint64_t*>(offsets), segments, singles, map, cursors, out,
               stream);
  }
}

void sort_tiles(const tile_call& call, const tile_map& map, cudaStream_t stream) {
  if (map.first_block[classes] == 0) return;
  if (call.key_bytes == 4) {
    call.positions ? launch_tiles<std::uint32_t, true>(call, map, stream)
                   : launch_tiles<std::uint32_t, false>(call, map, stream);
  } else {
    call.positions ? launch_tiles<std::uint64_t, true>(call, map, stream)
                   : launch_tiles<std::uint64_t, false>(call, map, stream);
  }
}

void load(std::size_t key_bytes, bool positions, std::size_t offset_bytes) {
  const load_only_scope loading;
  tile_map one_block{};  // the launches only load their kernels
  for (unsigned c = 2; c <= classes; ++c)
    one_block.first_block[c] = 1;
  count(nullptr, offset_bytes, 1, false, nullptr, nullptr, 0, nullptr);
  bin(nullptr, offset_bytes, 1, false, one_block, nullptr, {}, nullptr);
  tile_call call;
  call.key_bytes = key_bytes;
  call.positions = positions;
  sort_tiles(call, one_block, nullptr);
}

}  // namespace bitonic::kernels::segments
