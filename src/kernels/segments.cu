#include <cstdint>

#include "kernels/segment_bins.cuh"
#include "kernels/segment_rows.cuh"
#include "kernels/segment_tiles.cuh"
#include "kernels/segments.hpp"

namespace bitonic::kernels::segments {

void count(const offsets_view& offsets, index_t segments, bool singles, counters* out,
           long_segment* long_list, index_t long_capacity, cudaStream_t stream) {
  if (offsets.bytes == 4) {
    launch_count(static_cast<const std::uint32_t*>(offsets.at), offsets.origin, segments, singles,
                 out, long_list, long_capacity, stream);
  } else {
    launch_count(static_cast<const std::uint64_t*>(offsets.at), offsets.origin, segments, singles,
                 out, long_list, long_capacity, stream);
  }
}

void bin(const offsets_view& offsets, index_t segments, bool singles, const tile_map& map,
         counters* cursors, bins out, cudaStream_t stream) {
  if (offsets.bytes == 4) {
    launch_bin(static_cast<const std::uint32_t*>(offsets.at), offsets.origin, segments, singles,
               map, cursors, out, stream);
  } else {
    launch_bin(static_cast<const std::uint64_t*>(offsets.at), offsets.origin, segments, singles,
               map, cursors, out, stream);
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

void copy_rows(void* segments, void* rows, std::size_t bytes, const long_segment* list,
               index_t count, unsigned row_log2, std::uint64_t pad, bool to_rows,
               cudaStream_t stream) {
  if (bytes == 4) {
    auto* s = static_cast<std::uint32_t*>(segments);
    auto* r = static_cast<std::uint32_t*>(rows);
    const auto p = std::uint32_t(pad);
    to_rows ? launch_copy_rows<std::uint32_t, true>(s, r, list, count, row_log2, p, stream)
            : launch_copy_rows<std::uint32_t, false>(s, r, list, count, row_log2, p, stream);
  } else {
    auto* s = static_cast<std::uint64_t*>(segments);
    auto* r = static_cast<std::uint64_t*>(rows);
    to_rows ? launch_copy_rows<std::uint64_t, true>(s, r, list, count, row_log2, pad, stream)
            : launch_copy_rows<std::uint64_t, false>(s, r, list, count, row_log2, pad, stream);
  }
}

void load(std::size_t key_bytes, bool positions, std::size_t offset_bytes,
          std::size_t second_bytes) {
  const load_only_scope loading;
  tile_map one_block{};  // the launches only load their kernels
  for (unsigned c = 2; c <= classes; ++c)
    one_block.first_block[c] = 1;
  const offsets_view none{nullptr, offset_bytes, 0};
  count(none, 1, false, nullptr, nullptr, 0, nullptr);
  bin(none, 1, false, one_block, nullptr, {}, nullptr);
  tile_call call;
  call.key_bytes = key_bytes;
  call.positions = positions;
  sort_tiles(call, one_block, nullptr);
  for (const std::size_t bytes : {key_bytes, second_bytes}) {
    if (bytes == 0) continue;
    copy_rows(nullptr, nullptr, bytes, nullptr, 1, 0, 0, true, nullptr);
    copy_rows(nullptr, nullptr, bytes, nullptr, 1, 0, 0, false, nullptr);
  }
}

}  // namespace bitonic::kernels::segments
