// What of the kernels' launch shapes (tuning.hpp) the current device holds: the kernels know
// their shapes, the runtime layer the device's limits; the plan gets the answers as numbers
// (plan::device_shape) and needs neither.
#pragma once

#include <cstddef>

namespace bitonic::kernels {

//! The most stages the cluster sort sorts in one launch on the current device: its blocks (one an
//! SM) times the largest cluster of them the device places, as a power of two up to the tuning's;
//! 0 where no cluster of two fits or the key size has no cluster sort.
unsigned cluster_sort_stages(std::size_t key_bytes);

//! Tiles of the optimized path resident at once on the current device: tile_min_blocks an SM
//! (their registers), fewer where an SM's shared memory holds fewer; 0 without cooperative
//! launches (the in-place merge needs every tile of a run resident).
unsigned resident_tiles(std::size_t key_bytes);

}  // namespace bitonic::kernels
