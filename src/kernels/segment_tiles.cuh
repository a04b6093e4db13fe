// Segmented sorts, the segments of up to a tile: a block loads a tile of 2^tile_log2 words into
// shared memory, one binned segment of class c or several side by side, each padded to 2^c with
// the greatest word, and runs the network's stages 1..c (network.hpp's steps inside every 2^c
// slot), then writes each segment back. Why it is fast enough: every key is read and written once;
// each thread keeps 16 consecutive words in registers, where the steps of distance < 16 (stages
// 1-4 whole, the last four steps of later stages) run without a barrier, and only the longer
// steps go through shared memory (padded one word in 32, so a thread's run of 16 is read without
// bank conflicts); short segments share a block (2-key segments cost what 8192-key tiles cost per
// key, not a block each), and one long segment never holds up a block of short ones.
// Words are key_order.hpp's unsigned words of one size (word_codec: the key type's map at run
// time), so there is one kernel per key size. With positions each word carries its index in the
// segment as a tie-break: the sort is stable, and keys, values and indices are gathered through
// the positions (all reads of a block before its writes, so the gathers work in place).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/launch.cuh"
#include "kernels/segments.hpp"
#include "kernels/tuning.hpp"
#include "kernels/word_codec.cuh"
#include "network/network.hpp"

namespace bitonic::kernels::segments {

using tuning = ::bitonic::tuning::segment_tiles;

//! What every block of one launch shares.
template <class W>
struct tile_params {
  const W* keys;
  W* out_keys;
  void* values;
  void* indices;
  unsigned value_bytes, index_bytes;
  bins in;
  tile_map map;
  rows::word_codec<W> codec;
};

//! Shared memory holds a tile with one unused word after every 32 (padded_index), so that a
//! thread's items_per_thread consecutive words are read and written without bank conflicts.
constexpr unsigned padded_tile = tuning::tile + tuning::tile / 32;
__device__ __forceinline__ unsigned padded_index(unsigned i) {
  return i + (i >> 5);
}

//! Dynamic shared memory of a block: the padded tile of words, and of positions.
constexpr std::size_t tile_smem_bytes(std::size_t word_bytes, bool positions) {
  return std::size_t{padded_tile} * (word_bytes + (positions ? 4 : 0));
}

//! The (word, position) pairs (wa, pa) and (wb, pb) in ascending order, positions breaking ties
//! (keys only: the words alone); in registers or shared memory alike.
template <bool Positions, class W>
__device__ __forceinline__ void order_pair(W& wa, W& wb, std::uint32_t& pa, std::uint32_t& pb) {
  const W a = wa, b = wb;
  bool swap = b < a;
  if constexpr (Positions) swap = swap || (b == a && pb < pa);
  if (swap) {
    wa = b;
    wb = a;
    if constexpr (Positions) {
      const std::uint32_t q = pa;
      pa = pb;
      pb = q;
    }
  }
}

//! The register step of mask Mask (partner = index ^ Mask) on a thread's consecutive words.
template <unsigned Mask, bool Positions, class W>
__device__ __forceinline__ void register_step(W (&word)[tuning::items_per_thread],
                                              std::uint32_t (&position)[tuning::items_per_thread]) {
#pragma unroll
  for (unsigned k = 0; k < tuning::items_per_thread; ++k) {
    const unsigned partner = k ^ Mask;
    if (partner > k) order_pair<Positions>(word[k], word[partner], position[k], position[partner]);
  }
}

//! The steps of stage s whose partners lie in a thread's 16 consecutive words: the whole stage up
//! to stage 4 (its flip included), the last four steps of later stages.
template <bool Positions, class W>
__device__ __forceinline__ void register_steps(
    unsigned s, W (&word)[tuning::items_per_thread],
    std::uint32_t (&position)[tuning::items_per_thread]) {
  static_assert(tuning::items_per_thread == 16, "register steps are written for 16 keys a thread");
  switch (s) {
    case 1:
      register_step<1, Positions>(word, position);
      return;
    case 2:
      register_step<3, Positions>(word, position);
      break;
    case 3:
      register_step<7, Positions>(word, position);
      register_step<2, Positions>(word, position);
      break;
    case 4:
      register_step<15, Positions>(word, position);
      register_step<4, Positions>(word, position);
      register_step<2, Positions>(word, position);
      break;
    default:
      register_step<8, Positions>(word, position);
      register_step<4, Positions>(word, position);
      register_step<2, Positions>(word, position);
  }
  register_step<1, Positions>(word, position);
}

template <class W, bool Positions>
__global__ void __launch_bounds__(tuning::block_threads) tile_kernel(tile_params<W> p) {
  extern __shared__ __align__(16) unsigned char smem[];
  W* const words = reinterpret_cast<W*>(smem);
  std::uint32_t* const positions = reinterpret_cast<std::uint32_t*>(words + padded_tile);
  constexpr unsigned items = tuning::items_per_thread;
  constexpr unsigned register_log2 = 4;  // a thread's own words: 16 consecutive ones
  const unsigned own = threadIdx.x * items;
  W word[items];
  std::uint32_t position[items] = {};
  const auto load_own = [&] {
#pragma unroll
    for (unsigned k = 0; k < items; ++k) {
      word[k] = words[padded_index(own + k)];
      if constexpr (Positions) position[k] = positions[padded_index(own + k)];
    }
  };
  const auto store_own = [&] {
#pragma unroll
    for (unsigned k = 0; k < items; ++k) {
      words[padded_index(own + k)] = word[k];
      if constexpr (Positions) positions[padded_index(own + k)] = position[k];
    }
  };
  for (index_t block = blockIdx.x; block < p.map.first_block[classes]; block += gridDim.x) {
    unsigned c = 1;
    while (block >= p.map.first_block[c + 1])
      ++c;
    const index_t first =
        p.map.first_segment[c] + (block - p.map.first_block[c]) * (tuning::tile >> c);
    const unsigned segments =
        unsigned(min(index_t{(tuning::tile >> c)}, p.map.first_segment[c + 1] - first));
    const unsigned used = segments << c, slot_mask = (1u << c) - 1;
    // Item k of this thread: key i = k * block_threads + threadIdx.x of the tile, in slot i >> c.
    const auto segment_of = [&](unsigned i, std::uint64_t& begin, unsigned& length) {
      begin = p.in.begin[first + (i >> c)];
      length = p.in.length[first + (i >> c)];
    };
    __syncthreads();  // the previous tile's words are written out
#pragma unroll
    for (unsigned k = 0; k < items; ++k) {
      const unsigned i = k * tuning::block_threads + threadIdx.x;
      W w = ~W{0};  // padding: after every word of the segment (and the tile's unused slots)
      const unsigned at = i & slot_mask;
      if (i < used) {
        std::uint64_t begin;
        unsigned length;
        segment_of(i, begin, length);
        if (at < length) {
          const W bits = p.keys[begin + at];
          w = Positions ? p.codec.encode_class(bits) : p.codec.encode(bits);
        }
      }
      words[padded_index(i)] = w;
      if constexpr (Positions) positions[padded_index(i)] = at;
    }
    __syncthreads();
    load_own();
    for (unsigned s = 1; s <= c; ++s) {
      if (s > register_log2) {  // the steps of distance 16 and more in shared memory
        store_own();
        __syncthreads();
        for (network::step st{s, s - 1}; st.distance_log2 >= register_log2; st = st.next()) {
          for (unsigned t = threadIdx.x; t < used / 2; t += tuning::block_threads) {
            const unsigned slot = (t >> (c - 1)) << c;
            const unsigned lo = st.lower_index<unsigned>(t & (slot_mask >> 1));
            const unsigned a = padded_index(slot | lo);
            const unsigned b = padded_index(slot | unsigned(st.upper_index(lo)));
            order_pair<Positions>(words[a], words[b], positions[a], positions[b]);
          }
          __syncthreads();
        }
        load_own();
      }
      register_steps<Positions>(s, word, position);
    }
    store_own();
    __syncthreads();
    if constexpr (!Positions) {
#pragma unroll
      for (unsigned k = 0; k < items; ++k) {
        const unsigned i = k * tuning::block_threads + threadIdx.x;
        if (i >= used) break;
        std::uint64_t begin;
        unsigned length;
        segment_of(i, begin, length);
        if ((i & slot_mask) < length) {
          p.out_keys[begin + (i & slot_mask)] = p.codec.decode(words[padded_index(i)]);
        }
      }
    } else {
      // Gather first (every read of the block's segments), then write: in place is safe because
      // the segments of a tile belong to this block alone.
      // The registers of the network hold the gathered keys and the positions they come from.
      W* const keys = word;
      std::uint32_t* const from = position;
      std::uint64_t values[items];
#pragma unroll
      for (unsigned k = 0; k < items; ++k) {
        const unsigned i = k * tuning::block_threads + threadIdx.x;
        from[k] = ~0u;
        if (i >= used) continue;
        std::uint64_t begin;
        unsigned length;
        segment_of(i, begin, length);
        if ((i & slot_mask) >= length) continue;
        from[k] = positions[padded_index(i)];
        if (p.out_keys != nullptr) keys[k] = p.keys[begin + from[k]];
        if (p.value_bytes == 4)
          values[k] = static_cast<const std::uint32_t*>(p.values)[begin + from[k]];
        if (p.value_bytes == 8)
          values[k] = static_cast<const std::uint64_t*>(p.values)[begin + from[k]];
      }
      __syncthreads();
#pragma unroll
      for (unsigned k = 0; k < items; ++k) {
        if (from[k] == ~0u) continue;
        const unsigned i = k * tuning::block_threads + threadIdx.x;
        std::uint64_t begin;
        unsigned length;
        segment_of(i, begin, length);
        const std::uint64_t to = begin + (i & slot_mask);
        if (p.out_keys != nullptr) p.out_keys[to] = keys[k];
        if (p.value_bytes == 4)
          static_cast<std::uint32_t*>(p.values)[to] = std::uint32_t(values[k]);
        if (p.value_bytes == 8) static_cast<std::uint64_t*>(p.values)[to] = values[k];
        if (p.index_bytes == 4) static_cast<std::uint32_t*>(p.indices)[to] = from[k];
        if (p.index_bytes == 8) static_cast<std::uint64_t*>(p.indices)[to] = from[k];
      }
    }
  }
}

//! Enqueues tile_kernel for `call` on `stream` (only loads it under a load_only_scope).
template <class W, bool Positions>
void launch_tiles(const tile_call& call, const tile_map& map, cudaStream_t stream) {
  constexpr auto kernel = tile_kernel<W, Positions>;
  constexpr std::size_t smem = tile_smem_bytes(sizeof(W), Positions);
  allow_dynamic_shared_memory<kernel>(smem, "cudaFuncSetAttribute(segments tile_kernel)");
  const tile_params<W> params{static_cast<const W*>(call.keys),
                              static_cast<W*>(call.out_keys),
                              call.values,
                              call.indices,
                              unsigned(call.value_bytes),
                              unsigned(call.index_bytes),
                              call.in,
                              map,
                              {call.map, call.descending ? ~W{0} : W{0}}};
  launch_with_attributes(kernel, grid_blocks(map.first_block[classes], 1), tuning::block_threads,
                         smem, stream, "segments tile_kernel launch", nullptr, 0, params);
}

}  // namespace bitonic::kernels::segments
