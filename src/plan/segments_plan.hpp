// Segmented sorts: which block of the segment-tile launch sorts which segments. Segments are
// binned by length: class c (1 <= c <= tile_log2) holds the lengths 2^(c-1) + 1 .. 2^c, each
// padded to 2^c in a tile of 2^tile_log2 keys, so a block sorts 2^(tile_log2 - c) segments of one
// class side by side; class 0 (fewer than 2 keys) needs nothing; longer segments go to the batched
// sorts in padded rows (api/segments.cpp). The bins list the short segments class by class; blocks
// take them in that order.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/tuning.hpp"
#include "network/network.hpp"

namespace bitonic::plan {

//! Classes 0 .. tile_log2 (kernels/segments.hpp's segment_class); long segments are counted apart.
inline constexpr unsigned segment_classes = tuning::segment_tiles::tile_log2 + 1;

//! Segments of class c that one block sorts: a tile of them.
BITONIC_HOST_DEVICE constexpr unsigned segments_per_block(unsigned c) {
  return 1u << (tuning::segment_tiles::tile_log2 - c);
}

//! The segment-tile launch: per class, its first entry in the bins and its first block (entry
//! segment_classes: the totals), which the api hands to the kernels as their tile_map.
struct segments_plan {
  std::uint64_t counts[segment_classes] = {};
  std::uint64_t first_segment[segment_classes + 1] = {};
  std::uint64_t first_block[segment_classes + 1] = {};

  BITONIC_HOST_DEVICE std::uint64_t short_segments() const {
    return first_segment[segment_classes];
  }
  BITONIC_HOST_DEVICE std::uint64_t blocks() const { return first_block[segment_classes]; }
};

//! The plan for these counts of segments a class (counts[0], the segments of fewer than 2 keys,
//! get no block and no bin).
segments_plan make_segments_plan(const std::array<std::uint64_t, segment_classes>& counts);

}  // namespace bitonic::plan
