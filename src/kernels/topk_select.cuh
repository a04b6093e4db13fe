// Top-k select for 4-byte keys, k <= 2048: each block reads its part of an array once and keeps
// the K best records (K = k rounded up to a power of two) in shared memory, without sorting what
// cannot reach them. A record is a 64-bit word, the key's class word (complemented when
// descending) above its index in the array, so words are distinct and their `<` is exactly the
// order of a stable sort: the result equals topk_take's bit for bit.
//
// Why it is fast: a key is compared once with the block's threshold (the K-th best word kept so
// far) and dropped unless it beats it; only survivors go to a buffer in shared memory (a warp
// reserves its slots with one atomic). When the buffer could overflow (and once as soon as it
// holds K survivors, to start filtering), the block merges the survivors into the kept words with
// the network (network.hpp's steps, in shared memory): sorted in blocks of K, reduced pairwise to
// the better block by the first step of the stage that would merge two blocks (the smaller of
// each mirrored pair are the K best) and its half-cleaners (which sort them), and merged into the
// kept words the same way. On random keys the survivors of a part of m keys number about
// K ln(m / K), so the work is one read of the keys. Parts of one array
// leave K candidates each; the same kernel then selects among the candidates (words in, not keys)
// until one part is left, whose first k records it writes as keys (gathered bit for bit from the
// array) and indices.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "bitonic/bitonic.hpp"
#include "kernels/launch.cuh"
#include "kernels/tuning.hpp"
#include "network/key_order.hpp"
#include "network/network.hpp"

namespace bitonic::kernels::topk_select {

using network::index_t;

//! The launch shape (kernels/tuning.hpp, which the plan reads too).
using tuning = ::bitonic::tuning::topk_select;

//! How 4-byte key bits become class words (key_order.hpp's class_word of the key type).
enum class key_kind : std::uint8_t { unsigned_integer, signed_integer, floating };

template <class Key>
constexpr key_kind key_kind_of() {
  static_assert(sizeof(Key) == 4, "the select path takes 4-byte keys");
  if constexpr (std::is_floating_point_v<Key>) return key_kind::floating;
  if constexpr (std::is_signed_v<Key>) return key_kind::signed_integer;
  return key_kind::unsigned_integer;
}

//! One pass: arrays of `m` inputs (keys, or the previous pass's candidate words) cut into `parts`
//! parts; each part leaves its K best words in `candidates`, or, when parts == 1, the first k of
//! them as keys and indices.
struct select_pass {
  const std::uint32_t* keys;     //!< all arrays' key bits (n a row): read, or gathered from
  const std::uint64_t* words;    //!< the candidates of the pass before; null: read `keys`
  std::uint64_t* candidates;     //!< parts > 1: arrays * parts * K words
  std::uint32_t* out_keys;       //!< parts == 1, may be null: arrays * k key bits
  std::uint32_t* out_indices32;  //!< parts == 1: at most one of the two index outputs
  std::uint64_t* out_indices64;
  index_t arrays, n, m, parts, k;
  unsigned k_log2;
  key_kind kind;
  bool descending;
};

//! The record word of the key bits at index i of an array.
__device__ inline std::uint64_t record_word(std::uint32_t bits, index_t i, key_kind kind,
                                            bool descending) {
  std::uint32_t w = bits;
  if (kind == key_kind::floating) w = class_word(__uint_as_float(bits));
  if (kind == key_kind::signed_integer) w = class_word(std::int32_t(bits));
  if (descending) w = ~w;
  return (std::uint64_t{w} << 32) | std::uint32_t(i);
}

//! The kept words and the buffer of survivors of one block, in shared memory.
struct block_state {
  std::uint64_t* kept;    //!< K words, ascending
  std::uint64_t* buffer;  //!< buffer_words(k_log2) words, `count` of them used
  unsigned* count;
  std::uint64_t* threshold;  //!< kept[K - 1]: only smaller words can still be among the K best
};

//! Keeps the smaller word of each mirrored pair of the sorted K-word blocks at `a` and `b` in `a`
//! (the first step of the stage that would merge them), for i = this thread's share of K.
__device__ inline void keep_smaller_mirrored(std::uint64_t* a, const std::uint64_t* b, unsigned i,
                                             unsigned kept) {
  const std::uint64_t other = b[kept - 1 - i];
  if (other < a[i]) a[i] = other;
}

//! Sorts the buffer's survivors and merges them into the kept words (all threads; count and the
//! buffer settled by a barrier before). The survivors are sorted in blocks of K (the network's
//! first k_log2 stages); pairs of blocks are then reduced to the better block, level by level,
//! each by the first step of the stage that would merge them (the smaller of each mirrored pair:
//! the K best, as a bitonic sequence) and that stage's half-cleaners (which sort them), until the
//! K best survivors are sorted in the first block; the same step and half-cleaners merge them
//! into the kept words. Far less work than sorting all survivors when they outnumber K.
__device__ void flush(const block_state& s, unsigned k_log2) {
  const unsigned kept = 1u << k_log2, used = *s.count;
  const unsigned sort_log2 = max(k_log2, network::ceil_log2(used));
  const unsigned sorted = 1u << sort_log2;
  for (unsigned i = used + threadIdx.x; i < sorted; i += tuning::block_threads)
    s.buffer[i] = ~std::uint64_t{0};  // +infinity: after every word
  __syncthreads();
  for (network::step st{1, 0}; st.stage <= k_log2; st = st.next()) {
    for (unsigned c = threadIdx.x; c < sorted / 2; c += tuning::block_threads) {
      const unsigned lo = st.lower_index<unsigned>(c), hi = unsigned(st.upper_index(lo));
      network::compare_exchange(s.buffer[lo], s.buffer[hi], ascending_less{});
    }
    __syncthreads();
  }
  // The half-cleaners of stage k_log2 + 1 on the K words at `block`, comparator c of them.
  const auto half_clean = [&](std::uint64_t* block, unsigned j, unsigned c) {
    const unsigned lo = network::step{k_log2 + 1, j}.lower_index<unsigned>(c);
    network::compare_exchange(block[lo], block[lo | (1u << j)], ascending_less{});
  };
  for (unsigned span = kept; span < sorted; span *= 2) {  // blocks `span` apart, in pairs
    const unsigned pairs = sorted / (2 * span);
    for (unsigned t = threadIdx.x; t < pairs * kept; t += tuning::block_threads) {
      std::uint64_t* first = s.buffer + (t >> k_log2) * 2 * span;
      keep_smaller_mirrored(first, first + span, t & (kept - 1), kept);
    }
    __syncthreads();
    for (unsigned j = k_log2; j-- > 0;) {
      for (unsigned t = threadIdx.x; t < pairs * kept / 2; t += tuning::block_threads)
        half_clean(s.buffer + (t >> (k_log2 - 1)) * 2 * span, j, t & (kept / 2 - 1));
      __syncthreads();
    }
  }
  for (unsigned i = threadIdx.x; i < kept; i += tuning::block_threads)
    keep_smaller_mirrored(s.kept, s.buffer, i, kept);
  __syncthreads();
  for (unsigned j = k_log2; j-- > 0;) {
    for (unsigned c = threadIdx.x; c < kept / 2; c += tuning::block_threads)
      half_clean(s.kept, j, c);
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    *s.threshold = s.kept[kept - 1];
    *s.count = 0;
  }
  __syncthreads();
}

__global__ void __launch_bounds__(tuning::block_threads) select_kernel(select_pass p) {
  extern __shared__ std::uint64_t smem[];
  __shared__ unsigned count;
  __shared__ std::uint64_t threshold;
  const unsigned kept_words = 1u << p.k_log2;
  const block_state s{smem, smem + kept_words, &count, &threshold};
  const unsigned capacity = tuning::buffer_words(p.k_log2);
  const unsigned lane = threadIdx.x % 32;
  for (index_t job = blockIdx.x; job < p.arrays * p.parts; job += gridDim.x) {
    const index_t array = job / p.parts, part = job % p.parts;
    const index_t begin = part * p.m / p.parts, end = (part + 1) * p.m / p.parts;
    __syncthreads();  // the previous job's outputs are read
    for (unsigned i = threadIdx.x; i < kept_words; i += tuning::block_threads)
      s.kept[i] = ~std::uint64_t{0};
    if (threadIdx.x == 0) {
      count = 0;
      threshold = ~std::uint64_t{0};
    }
    for (index_t tile = begin; tile < end; tile += tuning::tile) {
      __syncthreads();  // count, threshold and the buffer settled
      const unsigned used = count;
      const bool unfilled = threshold == ~std::uint64_t{0};
      __syncthreads();  // every thread has read count before the tile's survivors add to it
      // Full, or enough survivors for a first threshold: filtering starts a tile earlier.
      if (used + tuning::tile > capacity || (unfilled && used >= kept_words)) flush(s, p.k_log2);
      const std::uint64_t limit = threshold;
      for (unsigned item = 0; item < tuning::items_per_thread; ++item) {
        const index_t i = tile + item * tuning::block_threads + threadIdx.x;
        std::uint64_t word = ~std::uint64_t{0};
        if (i < end) {
          word = p.words != nullptr ? p.words[array * p.m + i]
                                    : record_word(p.keys[array * p.n + i], i, p.kind, p.descending);
        }
        const bool survives = word < limit;
        const unsigned ballot = __ballot_sync(0xffffffffu, survives);
        unsigned first = 0;
        if (lane == 0 && ballot != 0) first = atomicAdd(&count, unsigned(__popc(ballot)));
        first = __shfl_sync(0xffffffffu, first, 0);
        if (survives) s.buffer[first + __popc(ballot & ((1u << lane) - 1))] = word;
      }
    }
    __syncthreads();
    if (count != 0) flush(s, p.k_log2);
    if (p.parts > 1) {
      std::uint64_t* out = p.candidates + job * kept_words;
      for (unsigned i = threadIdx.x; i < kept_words; i += tuning::block_threads)
        out[i] = s.kept[i];
    } else {
      const std::uint32_t* keys = p.keys + array * p.n;
      for (unsigned j = threadIdx.x; j < p.k; j += tuning::block_threads) {
        const std::uint32_t index = std::uint32_t(s.kept[j]);
        const index_t at = array * p.k + j;
        if (p.out_keys != nullptr) p.out_keys[at] = keys[index];
        if (p.out_indices32 != nullptr) p.out_indices32[at] = index;
        if (p.out_indices64 != nullptr) p.out_indices64[at] = index;
      }
    }
  }
}

//! Blocks of one pass: every (array, part) job once, the grid capped (the kernel loops).
inline unsigned pass_blocks(const select_pass& p) {
  return grid_blocks(p.arrays * p.parts, 1);
}

//! Enqueues one pass on `stream` (only loads the kernel under a load_only_scope).
inline void launch(const select_pass& p, cudaStream_t stream) {
  constexpr auto kernel = select_kernel;
  allow_dynamic_shared_memory<kernel>(tuning::max_smem_bytes(),
                                      "cudaFuncSetAttribute(topk select_kernel shared memory)");
  launch_with_attributes(kernel, pass_blocks(p), tuning::block_threads,
                         tuning::smem_bytes(p.k_log2), stream, "topk select_kernel launch", nullptr,
                         0, p);
}

}  // namespace bitonic::kernels::topk_select
