// The kernels of kernels/small_keys.cuh, compiled once for every small key type and word, element
// size and index type (declared in kernels/small_keys.hpp).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "bitonic/bitonic.hpp"
#include "kernels/small_keys.cuh"

namespace bitonic::kernels::small_keys {

#define BITONIC_INSTANTIATE_WORDS(Key, Word)                                            \
  template void widen<Key, Word>(const Key*, Word*, index_t, bool, bool, cudaStream_t); \
  template void narrow<Key, Word>(const Word*, Key*, index_t, cudaStream_t);            \
  template void load_words<Key, Word>();
#define BITONIC_INSTANTIATE_32_BIT_WORDS(Key) BITONIC_INSTANTIATE_WORDS(Key, std::uint32_t)
BITONIC_FOR_EACH_SMALL_KEY(BITONIC_INSTANTIATE_32_BIT_WORDS)
BITONIC_INSTANTIATE_WORDS(__half, std::uint64_t)  // the stable words of 2-byte floats
BITONIC_INSTANTIATE_WORDS(__nv_bfloat16, std::uint64_t)
#undef BITONIC_INSTANTIATE_32_BIT_WORDS
#undef BITONIC_INSTANTIATE_WORDS

#define BITONIC_INSTANTIATE_GATHER(Bits, Index)                                                  \
  template void gather<Bits, Index>(const Index*, const Bits*, Bits*, index_t, index_t, index_t, \
                                    cudaStream_t);                                               \
  template void load_gather<Bits, Index>();
#define BITONIC_INSTANTIATE_GATHERS(Bits)         \
  BITONIC_INSTANTIATE_GATHER(Bits, std::uint32_t) \
  BITONIC_INSTANTIATE_GATHER(Bits, std::uint64_t)
BITONIC_INSTANTIATE_GATHERS(std::uint8_t)
BITONIC_INSTANTIATE_GATHERS(std::uint16_t)
BITONIC_INSTANTIATE_GATHERS(std::uint32_t)
BITONIC_INSTANTIATE_GATHERS(std::uint64_t)
#undef BITONIC_INSTANTIATE_GATHERS
#undef BITONIC_INSTANTIATE_GATHER

}  // namespace bitonic::kernels::small_keys
