#include <cstdint>

#include "api/sort_gpu.cuh"

BITONIC_INSTANTIATE_SORT(std::uint32_t)
