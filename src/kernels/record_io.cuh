// Records read and written by the word sort itself (issue 20; docs/PERFORMANCE.md log 67). A
// record of a 4-byte key and a 4-byte value (or its position) sorts as one 64-bit word, the key's
// word high and the value low (records.cuh). Where the word sort's plan starts with the sample
// split, the split makes each word as it reads the caller's two arrays, and each bucket's last
// pass writes the key and the value back apart: no pass packs the words first or unpacks them
// after, two of the ~16 passes over 8 bytes a record that the sort took at 2^27. The kernels of
// those three pass kinds take the I/O as a template parameter: keys_only (every other sort) or
// record_io, whose key map is a run-time value, so that one instantiation serves every 4-byte key
// type.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/word_codec.cuh"
#include "network/network.hpp"

namespace bitonic::kernels {

//! A keys-only sort's I/O: the passes read and write keys (or words) in their own buffers.
struct keys_only {};

//! The caller's arrays of a record sort of 4-byte keys, as its 64-bit words.
struct record_io {
  const std::uint32_t* keys_in = nullptr;
  const std::uint32_t* values_in = nullptr;  //!< null: each record's position is its value
  std::uint32_t* keys_out = nullptr;         //!< null: the sorted keys are not written
  void* values_out = nullptr;                //!< the words' low halves, value_bytes each
  unsigned value_bytes = 4;                  //!< 4, or 8 (positions widened: 64-bit indices)
  bool by_class = false;  //!< class words (key_order.hpp): equivalent keys keep their order
  rows::word_codec<std::uint32_t> codec{};  //!< the key type's map, complemented when descending

  //! The word of record i.
  __device__ std::uint64_t word(network::index_t i) const {
    const std::uint32_t bits = keys_in[i];
    const std::uint32_t key = by_class ? codec.encode_class(bits) : codec.encode(bits);
    const std::uint32_t low = values_in != nullptr ? values_in[i] : std::uint32_t(i);
    return std::uint64_t{key} << 32 | low;
  }

  //! Writes the record of word w to place i of the outputs.
  __device__ void put(network::index_t i, std::uint64_t w) const {
    if (keys_out != nullptr) keys_out[i] = codec.decode(std::uint32_t(w >> 32));
    if (value_bytes == 4) {
      static_cast<std::uint32_t*>(values_out)[i] = std::uint32_t(w);
    } else {
      static_cast<std::uint64_t*>(values_out)[i] = std::uint32_t(w);
    }
  }
};

template <class IO>
inline constexpr bool is_record_io_v = std::is_same_v<IO, record_io>;

}  // namespace bitonic::kernels
