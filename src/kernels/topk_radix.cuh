// Top-k of arrays that fit the L2 (all keys of the call up to tuning::topk_radix::max_keys) whose
// select plan needs several passes: one radix selection over each whole array finds its k best
// record words (topk_select.cuh's words: class word above index, all distinct), and a ranking
// kernel writes each to its place among them (the count of smaller ones). The selection is one
// cooperative launch: in round r every block counts the 8-bit digit at bits 56 - 8r of the words
// of its slice whose digits above match the prefix chosen so far (a histogram in shared memory,
// added to the array's in global memory); after a grid barrier the array's first block picks the
// next digit of the k-th smallest word with topk_select's choose_digit; after another, every
// block reads the prefix. Once every word on the prefix is needed for every array (two or three
// rounds on spread keys) the rounds end; the blocks then gather the words at or below the prefix:
// exactly k, in no order. Why it is fast where the select passes are not (one array, k = 2048: each
// part must see many keys before its threshold filters, three passes of one to 32 blocks run in
// turn, the last sorting 2048 words in one block): every round reads the array from the L2 with all
// SMs, the rounds cost barriers rather than launches (host time), and the k results are placed by
// many blocks at once.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/launch.cuh"
#include "kernels/topk_select.cuh"
#include "kernels/tuning.hpp"
#include "network/network.hpp"
#include "runtime/device.hpp"

namespace bitonic::kernels::topk_radix {

using network::index_t;
using tuning = ::bitonic::tuning::topk_radix;
using topk_select::key_kind;

//! One array's selection between rounds, in global memory (zeroed before the first round).
struct array_state {
  topk_select::selection select;  //!< the chooser's: need (0: k, before the first round), ...
  std::uint64_t prefix, mask;     //!< its prefix and mask as every block reads them
  unsigned settled;               //!< every word on the prefix is needed: rounds are over
  unsigned taken;                 //!< words gathered so far
  unsigned settled_arrays;        //!< the first array's only: arrays settled, for an early end
  unsigned histogram[topk_select::tuning::radix];
};
static_assert(sizeof(array_state) <= tuning::state_words * 8,
              "tuning::topk_radix::state_words holds an array's state");

//! The selection of `arrays` arrays of n keys, k words each into `candidates` (k a row).
struct radix_pass {
  const std::uint32_t* keys;
  index_t arrays, n, blocks_per_array;
  unsigned k;
  key_kind kind;
  bool descending;
  array_state* states;
  std::uint64_t* candidates;
};

//! The digits' bits and the rounds of 64-bit words.
inline constexpr unsigned digit_bits = network::ceil_log2(topk_select::tuning::radix);
inline constexpr unsigned rounds = 64 / digit_bits;

//! Calls f(word, inside) for the block's slice of its array, a round of block_threads
//! consecutive keys at a time (coalesced): every thread of the block in every round, so that
//! whole warps walk the slice together; inside is false (word 0) for positions past its end.
template <class F>
__device__ void for_each_word(const radix_pass& p, index_t array, F f) {
  const index_t block = blockIdx.x % p.blocks_per_array;
  const index_t begin = block * tuning::keys_per_block;
  const index_t end = begin + tuning::keys_per_block < p.n ? begin + tuning::keys_per_block : p.n;
  const std::uint32_t* keys = p.keys + array * p.n;
  for (index_t base = begin; base < end; base += tuning::block_threads) {
    const index_t i = base + threadIdx.x;
    const bool inside = i < end;
    f(inside ? topk_select::record_word(keys[i], i, p.kind, p.descending) : std::uint64_t{0},
      inside);
  }
}

//! One round's digit counts of the words on the prefix, added to the array's histogram.
__device__ inline void count_digits(const radix_pass& p, index_t array, unsigned* histogram,
                                    std::uint64_t prefix, std::uint64_t mask, unsigned shift) {
  constexpr unsigned radix = topk_select::tuning::radix;
  for (unsigned d = threadIdx.x; d < radix; d += tuning::block_threads)
    histogram[d] = 0;
  __syncthreads();
  for_each_word(p, array, [&](std::uint64_t word, bool inside) {
    if (inside && (word & mask) == prefix) atomicAdd(&histogram[(word >> shift) & (radix - 1)], 1u);
  });
  __syncthreads();
  unsigned* const total = p.states[array].histogram;
  for (unsigned d = threadIdx.x; d < radix; d += tuning::block_threads) {
    if (histogram[d] != 0) atomicAdd(&total[d], histogram[d]);
  }
}

//! The chooser of an array (its first block), after a round: the next digit from the array's
//! counts (read past the L1), which it clears for the next round.
__device__ inline void choose(const radix_pass& p, array_state& state, unsigned* histogram,
                              unsigned shift) {
  constexpr unsigned radix = topk_select::tuning::radix;
  for (unsigned d = threadIdx.x; d < radix; d += tuning::block_threads) {
    histogram[d] = __ldcg(&state.histogram[d]);
    state.histogram[d] = 0;
  }
  if (threadIdx.x == 0 && state.select.need == 0) state.select.need = p.k;
  __syncthreads();
  if (threadIdx.x < 32) topk_select::choose_digit(state.select, histogram, shift);
  __syncthreads();
  if (threadIdx.x == 0) {
    state.prefix = state.select.prefix;
    state.mask = state.select.prefix_mask;
    state.settled = state.select.done ? 1u : 0u;
    if (state.select.done) atomicAdd(&p.states[0].settled_arrays, 1u);
  }
}

//! Every round and the gather in one cooperative launch (all blocks resident: `fits`): grid
//! barriers between the rounds, each array's first block choosing its digits; every block reads
//! the prefix past the L1, where the chooser wrote it. The words at or below the final prefix
//! (exactly k an array) go to the candidates, in no order.
__global__ void __launch_bounds__(tuning::block_threads) select_kernel(radix_pass p) {
  __shared__ unsigned histogram[topk_select::tuning::radix];
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const index_t array = blockIdx.x / p.blocks_per_array;
  const bool chooser = blockIdx.x % p.blocks_per_array == 0;
  array_state& state = p.states[array];
  for (unsigned r = 0; r < rounds; ++r) {
    const unsigned shift = 64 - digit_bits * (r + 1);
    const bool settled = __ldcg(&state.settled) != 0;  // the same for the array's blocks
    if (!settled) {
      count_digits(p, array, histogram, __ldcg(&state.prefix), __ldcg(&state.mask), shift);
    }
    grid.sync();
    if (chooser && !settled) choose(p, state, histogram, shift);
    grid.sync();
    // Every array settled (read by all blocks between the same barriers): no more rounds.
    if (__ldcg(&p.states[0].settled_arrays) == p.arrays) break;
  }
  const std::uint64_t prefix = __ldcg(&state.prefix), mask = __ldcg(&state.mask);
  std::uint64_t* out = p.candidates + array * p.k;
  const unsigned lane = threadIdx.x % 32;
  // A ballot reserves a warp's slots at once.
  for_each_word(p, array, [&](std::uint64_t word, bool inside) {
    const bool take = inside && (word & mask) <= prefix;
    const unsigned ballot = __ballot_sync(0xffffffffu, take);
    unsigned first = 0;
    if (lane == 0 && ballot != 0) first = atomicAdd(&state.taken, unsigned(__popc(ballot)));
    first = __shfl_sync(0xffffffffu, first, 0);
    if (take) out[first + __popc(ballot & ((1u << lane) - 1))] = word;
  });
}

//! Where the k results of each array go (either output may be null; one index width).
struct outputs {
  std::uint32_t* keys;
  std::uint32_t* indices32;
  std::uint64_t* indices64;
};

//! Each array's k candidates, in sorted order: a candidate's place is the number of candidates
//! below it (the words are distinct, so the places are a permutation). k <= 2048 words fit shared
//! memory and a thread counts against all of them, every thread reading the same word at a time
//! (a broadcast); blocks of rank_threads candidates, so that many SMs share an array's k^2
//! comparisons, with no barrier between the steps of a network.
__global__ void __launch_bounds__(tuning::rank_threads) rank_kernel(radix_pass p, outputs out) {
  __shared__ std::uint64_t words[std::size_t{1} << topk_select::tuning::max_k_log2];
  const index_t blocks_per_array = (p.k + tuning::rank_threads - 1) / tuning::rank_threads;
  const index_t array = blockIdx.x / blocks_per_array;
  const std::uint64_t* candidates = p.candidates + array * p.k;
  for (unsigned i = threadIdx.x; i < p.k; i += tuning::rank_threads)
    words[i] = candidates[i];
  __syncthreads();
  const unsigned j = unsigned(blockIdx.x % blocks_per_array) * tuning::rank_threads + threadIdx.x;
  if (j >= p.k) return;
  const std::uint64_t mine = words[j];
  unsigned place = 0;
#pragma unroll 8
  for (unsigned i = 0; i < p.k; ++i)
    place += words[i] < mine ? 1u : 0u;
  const std::uint32_t index = std::uint32_t(mine);
  const index_t at = array * p.k + place;
  if (out.keys != nullptr) out.keys[at] = p.keys[array * p.n + index];
  if (out.indices32 != nullptr) out.indices32[at] = index;
  if (out.indices64 != nullptr) out.indices64[at] = index;
}

//! Blocks of a pass: blocks_per_array slices of every array.
inline unsigned pass_blocks(const radix_pass& p) {
  return unsigned(p.arrays * p.blocks_per_array);
}

//! Whether select_kernel's blocks for p are all resident at once on the current device (its
//! cooperative launch needs them to be).
inline bool fits(const radix_pass& p) {
  int per_sm = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, select_kernel,
                                                           int(tuning::block_threads), 0),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor(topk radix select_kernel)");
  return std::size_t(per_sm) * runtime::multiprocessor_count() >= pass_blocks(p);
}

//! Enqueues the selection (where fits(p); states zeroed before) and the ranking into `out` on
//! `stream` (only loads the kernels under a load_only_scope).
inline void launch(const radix_pass& p, const outputs& out, cudaStream_t stream) {
  launch_cooperative(select_kernel, pass_blocks(p), tuning::block_threads, 0, stream,
                     "topk radix select_kernel cooperative launch", p);
  const index_t rank_blocks = p.arrays * ((p.k + tuning::rank_threads - 1) / tuning::rank_threads);
  launch_plain(rank_kernel, unsigned(rank_blocks), tuning::rank_threads, stream,
               "topk radix rank_kernel launch", p, out);
}

}  // namespace bitonic::kernels::topk_radix
