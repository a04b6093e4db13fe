#include <cstdint>

#include "kernels/record_rows.cuh"
#include "kernels/rows.hpp"
#include "kernels/sort_rows.cuh"

namespace bitonic::kernels::rows {

void sort_rows(void* keys, std::size_t key_bytes, std::uint64_t count, std::uint64_t length,
               word_map map, order direction, cudaStream_t stream) {
  if (key_bytes == 4) {
    kernels::sort_rows::launch(static_cast<std::uint32_t*>(keys), count, length, map, direction,
                               stream);
  } else {
    kernels::sort_rows::launch(static_cast<std::uint64_t*>(keys), count, length, map, direction,
                               stream);
  }
}

void sort_record_rows(const record_arrays& a, std::uint64_t count, std::uint64_t length,
                      word_map map, order direction, cudaStream_t stream) {
  const record_rows::record_rows rows{
      static_cast<const std::uint32_t*>(a.keys_in),
      static_cast<std::uint32_t*>(a.keys_out),
      static_cast<const std::uint32_t*>(a.values_in),
      a.second_out,
      a.second_bytes == 8,
      a.by_class,
      a.keys_gathered,
      {map, direction == order::descending ? ~std::uint32_t{0} : std::uint32_t{0}}};
  record_rows::launch(rows, count, length, stream);
}

}  // namespace bitonic::kernels::rows
