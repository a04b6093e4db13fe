// Records read and written by the word sort itself (issue 20; docs/PERFORMANCE.md log 67). A
// record of a 4-byte key and a 4-byte value (or its position) sorts as one 64-bit word, the key's
// word high and the value low (records.cuh). Where the word sort's plan starts with the sample
// split, the split makes each word as it reads the caller's two arrays, and each bucket's last
// pass writes the key and the value back apart: no pass packs the words first or unpacks them
// after, two of the ~16 passes over 8 bytes a record that the sort took at 2^27. The kernels of
// those three pass kinds take the I/O as a template parameter: keys_only (every other sort) or
// record_io, whose key map is a run-time value, so that one instantiation serves every 4-byte key
// type. A record of an 8-byte key and a value of up to 8 bytes (or its position) is one 16-byte
// word (wide_record_io; word128.hpp): the same three pass kinds, instantiated once more on those
// words (api/sort_w128.cu), sort it in one split plan where it took two sorts of 8-byte words by
// the key's halves and gathers (int64 + uint64 at 2^26: 20.9 -> 8.5 ms, log 71).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/word_codec.cuh"
#include "network/network.hpp"
#include "network/word128.hpp"

namespace bitonic::kernels {

//! A keys-only sort's I/O: the passes read and write keys (or words) in their own buffers.
struct keys_only {};

//! The caller's arrays of a record sort of 4-byte keys, as its 64-bit words.
struct record_io {
  using word_type = std::uint64_t;
  const std::uint32_t* keys_in = nullptr;
  const std::uint32_t* values_in = nullptr;  //!< null: each record's position is its value
  std::uint32_t* keys_out = nullptr;         //!< null: the sorted keys are not written
  void* values_out = nullptr;                //!< the words' low halves, value_bytes each
  unsigned value_bytes = 4;                  //!< 4, or 8 (positions widened: 64-bit indices)
  bool by_class = false;  //!< class words (key_order.hpp): equivalent keys keep their order
  //! With class words and positions (values_in null), keys_out apart from keys_in: a zero's or
  //! NaN's sorted key is read from keys_in at its position (its class word does not tell which
  //! bits it had), every other key decoded from its word, so that no gather of all keys follows.
  bool keys_by_position = false;
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
    if (keys_out != nullptr) {
      const auto key = std::uint32_t(w >> 32);
      keys_out[i] = keys_by_position && codec.class_of_several(key) ? keys_in[std::uint32_t(w)]
                                                                    : codec.decode(key);
    }
    if (value_bytes == 4) {
      static_cast<std::uint32_t*>(values_out)[i] = std::uint32_t(w);
    } else {
      static_cast<std::uint64_t*>(values_out)[i] = std::uint32_t(w);
    }
  }
};

//! The caller's arrays of a record sort of 8-byte keys, as its 16-byte words: the key's word
//! high, the value (4 or 8 bytes) or the record's position low. One instantiation serves every
//! 8-byte key type, as record_io's serves the 4-byte ones.
struct wide_record_io {
  using word_type = word128;
  const std::uint64_t* keys_in = nullptr;
  const void* values_in = nullptr;    //!< null: each record's position is its value
  std::uint64_t* keys_out = nullptr;  //!< null: the sorted keys are not written
  void* values_out = nullptr;         //!< the words' low halves, value_bytes each
  unsigned value_bytes = 8;           //!< of values_in and values_out: 4 or 8
  bool by_class = false;              //!< class words: equivalent keys keep their order
  bool keys_by_position = false;      //!< as record_io's
  rows::word_codec<std::uint64_t> codec{};

  //! The word of record i.
  __device__ word128 word(network::index_t i) const {
    const std::uint64_t bits = keys_in[i];
    const std::uint64_t key = by_class ? codec.encode_class(bits) : codec.encode(bits);
    std::uint64_t low = i;
    if (values_in != nullptr) {
      low = value_bytes == 4 ? static_cast<const std::uint32_t*>(values_in)[i]
                             : static_cast<const std::uint64_t*>(values_in)[i];
    }
    return {key, low};
  }

  //! Writes the record of word w to place i of the outputs.
  __device__ void put(network::index_t i, const word128& w) const {
    if (keys_out != nullptr) {
      keys_out[i] =
          keys_by_position && codec.class_of_several(w.hi) ? keys_in[w.lo] : codec.decode(w.hi);
    }
    if (value_bytes == 4) {
      static_cast<std::uint32_t*>(values_out)[i] = std::uint32_t(w.lo);
    } else {
      static_cast<std::uint64_t*>(values_out)[i] = w.lo;
    }
  }
};

//! Whether IO reads and writes a record sort's arrays (record_io, wide_record_io): then the
//! sort's keys are IO::word_type words.
template <class IO>
inline constexpr bool is_record_io_v =
    std::is_same_v<IO, record_io> || std::is_same_v<IO, wide_record_io>;

//! Whether the split and the refinement of a sort with this IO scatter stably
//! (sample_split::scatter_tile), so that each sub-bucket holds its records in the order of their
//! positions: where 4-byte keys' values are their positions and equivalent keys keep their order
//! (stable argsort, stable pairs and the stable sort), which the compact tiles then keep for
//! equal keys without ranking them (compact_record_tile.cuh). Elsewhere (unstable argsort too:
//! log 89) the scatter's faster unstable ranking serves.
template <class IO>
__host__ __device__ bool stable_split(const IO& io) {
  if constexpr (std::is_same_v<IO, record_io>) {
    return io.values_in == nullptr && io.by_class;
  } else {
    return false;
  }
}

//! Calls launch(std::true_type{}) where stable_split(io), else launch(std::false_type{}), so that
//! the stable scatters are instantiated only for the IO that can ask for them.
template <class IO, class Launch>
void with_stable_split(const IO& io, Launch launch) {
  if constexpr (std::is_same_v<IO, record_io>) {
    if (stable_split(io)) return launch(std::true_type{});
  }
  launch(std::false_type{});
}

}  // namespace bitonic::kernels
