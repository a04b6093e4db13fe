// Top-k select for 4-byte keys, k <= 2048: each block reads its part of an array once and keeps
// the K best records (K = k rounded up to a power of two) in shared memory, without sorting what
// cannot reach them. A record is a 64-bit word, the key's class word (complemented when
// descending) above its index in the array, so words are distinct and their `<` is exactly the
// order of a stable sort: the result equals topk_take's bit for bit.
//
// Why it is fast: a key is compared once with the block's threshold (the K-th best word kept so
// far) and dropped unless it beats it; only survivors go to a buffer in shared memory (a warp
// reserves its slots with one atomic). When the buffer could overflow (and once as soon as it
// holds K survivors, to start filtering), the block selects the K best of its kept words and the
// survivors by a radix selection on the words (a few counting rounds over them, PERFORMANCE.md
// log 50), in no order; only the last pass orders its K words, with the network (network.hpp's
// steps, in shared memory). On random keys the survivors of a part of m keys number about
// K ln(m / K), so the work is one read of the keys. Parts of one array leave K candidates each;
// the same kernel then selects among the candidates (words in, not keys) until one part is left,
// whose first k records it writes as keys (gathered bit for bit from the array) and indices.
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

//! What a flush's radix selection shares between the threads of a block.
struct selection {
  std::uint64_t prefix;       //!< the digits chosen so far, in the bits of prefix_mask
  std::uint64_t prefix_mask;  //!< the top bits the chosen digits cover
  std::uint64_t largest;      //!< the largest word kept
  unsigned need;              //!< words still to keep among those whose top bits equal prefix
  unsigned equal_taken;       //!< of the words equal to a whole-word prefix, those kept so far
  unsigned holes, filled;     //!< of the hole list (kept words that lost), written and refilled
  bool done;                  //!< every word whose top bits equal prefix is kept
};

//! The kept words and the buffer of survivors of one block, in shared memory. The buffer follows
//! the kept words, so that a flush selects among one array of candidates.
struct block_state {
  std::uint64_t* kept;    //!< K words, in no order (the last pass sorts them)
  std::uint64_t* buffer;  //!< buffer_words(k_log2) words, `count` of them used
  //! A flush's counts of digits while it selects, then its list of the positions in `kept` that
  //! it frees (one area: tuning::flush_scratch_bytes).
  unsigned* histogram;
  std::uint16_t* holes;
  unsigned* count;
  std::uint64_t* threshold;  //!< the largest kept word: only smaller ones can still be kept
  selection* select;
};

//! Warp 0 (all its lanes): the digit at `shift` of the need-th smallest candidate whose top bits
//! equal the prefix, from the histogram of those candidates' digits; added to the prefix.
__device__ inline void choose_digit(selection& sel, const unsigned* histogram, unsigned shift) {
  constexpr unsigned per_lane = tuning::radix / 32;
  const unsigned lane = threadIdx.x % 32;
  unsigned counts[per_lane], sum = 0;
#pragma unroll
  for (unsigned j = 0; j < per_lane; ++j) {
    counts[j] = histogram[lane * per_lane + j];
    sum += counts[j];
  }
  unsigned inclusive = sum;  // a warp scan of the lanes' sums
#pragma unroll
  for (unsigned d = 1; d < 32; d *= 2) {
    const unsigned below = __shfl_up_sync(0xffffffffu, inclusive, d);
    if (lane >= d) inclusive += below;
  }
  const unsigned need = sel.need;  // at least 1, and at most the candidates counted
  const unsigned chosen = __ffs(__ballot_sync(0xffffffffu, inclusive >= need)) - 1;
  __syncwarp();  // every lane has read sel.need before the chosen one writes it
  if (lane != chosen) return;
  unsigned below = inclusive - sum;
#pragma unroll
  for (unsigned j = 0; j < per_lane; ++j) {
    if (below + counts[j] >= need) {
      sel.prefix |= std::uint64_t{lane * per_lane + j} << shift;
      sel.prefix_mask |= std::uint64_t{tuning::radix - 1} << shift;
      sel.need = need - below;
      sel.done = counts[j] == need - below;
      return;
    }
    below += counts[j];
  }
}

//! Keeps the K smallest of the kept words and the buffer's survivors (all threads; count and the
//! buffer settled by a barrier before), in no order, and makes the largest of them the threshold.
//! A radix selection, most significant digit first: each round counts the digits of the
//! candidates that still tie with the K-th smallest on the digits chosen so far, and picks the
//! next digit of the K-th smallest; it ends once every tied candidate is kept (two or three
//! rounds on spread keys). Kept words that lose leave holes that the buffer's winners fill. Far
//! cheaper than sorting the survivors: a few passes over them, not log^2 K network steps.
template <unsigned Threads>
__device__ void flush(const block_state& s, unsigned k_log2) {
  constexpr unsigned digit_bits = network::ceil_log2(tuning::radix);
  const unsigned kept = 1u << k_log2, used = *s.count, total = kept + used;
  selection& sel = *s.select;
  if (threadIdx.x == 0) {
    sel.prefix = sel.prefix_mask = sel.largest = 0;
    sel.need = kept;
    sel.equal_taken = sel.holes = sel.filled = 0;
    sel.done = false;
  }
  for (int shift = 64 - int(digit_bits); shift >= 0; shift -= int(digit_bits)) {
    for (unsigned d = threadIdx.x; d < tuning::radix; d += Threads)
      s.histogram[d] = 0;
    __syncthreads();  // the histogram cleared, the prefix of the round before settled
    const std::uint64_t prefix = sel.prefix, mask = sel.prefix_mask;
    for (unsigned i = threadIdx.x; i < total; i += Threads) {
      const std::uint64_t w = s.kept[i];  // kept words, then the buffer's
      if ((w & mask) == prefix) atomicAdd(&s.histogram[(w >> shift) % tuning::radix], 1u);
    }
    __syncthreads();
    if (threadIdx.x < 32) choose_digit(sel, s.histogram, unsigned(shift));
    __syncthreads();
    if (sel.done) break;
  }
  // Every digit chosen without `done`: the tied words are equal (the padding, ~0): any `need` of
  // them.
  const std::uint64_t prefix = sel.prefix, mask = sel.prefix_mask;
  const bool done = sel.done;
  const unsigned need = sel.need;
  const auto selected = [&](std::uint64_t w) {
    const std::uint64_t top = w & mask;
    if (top != prefix) return top < prefix;
    return done || atomicAdd(&sel.equal_taken, 1u) < need;
  };
  std::uint64_t largest = 0;
  for (unsigned i = threadIdx.x; i < kept; i += Threads) {
    const std::uint64_t w = s.kept[i];
    if (selected(w)) {
      largest = max(largest, w);
    } else {
      s.holes[atomicAdd(&sel.holes, 1u)] = std::uint16_t(i);
    }
  }
  __syncthreads();  // every hole listed; exactly as many of the buffer's words win
  for (unsigned i = threadIdx.x; i < used; i += Threads) {
    const std::uint64_t w = s.buffer[i];
    if (selected(w)) {
      s.kept[s.holes[atomicAdd(&sel.filled, 1u)]] = w;
      largest = max(largest, w);
    }
  }
#pragma unroll
  for (unsigned d = 16; d > 0; d /= 2)
    largest = max(largest, __shfl_xor_sync(0xffffffffu, largest, d));
  if (threadIdx.x % 32 == 0)
    atomicMax(reinterpret_cast<unsigned long long*>(&sel.largest),
              static_cast<unsigned long long>(largest));
  __syncthreads();
  if (threadIdx.x == 0) {
    *s.threshold = sel.largest;
    *s.count = 0;
  }
  __syncthreads();
}

//! Sorts the K kept words ascending with the network (all threads; the last pass, before it
//! writes the first k).
template <unsigned Threads>
__device__ void sort_kept(const block_state& s, unsigned k_log2) {
  const unsigned kept = 1u << k_log2;
  for (network::step st{1, 0}; st.stage <= k_log2; st = st.next()) {
    for (unsigned c = threadIdx.x; c < kept / 2; c += Threads) {
      const unsigned lo = st.lower_index<unsigned>(c), hi = unsigned(st.upper_index(lo));
      network::compare_exchange(s.kept[lo], s.kept[hi], ascending_less{});
    }
    __syncthreads();
  }
}

//! One pass in blocks of Threads (tuning::block_threads, or wide_block_threads where the pass has
//! fewer blocks than SMs); as many blocks an SM as fit its 2048 threads, so 32 registers a thread.
template <unsigned Threads>
__global__ void __launch_bounds__(Threads, 2048 / Threads) select_kernel(select_pass p) {
  extern __shared__ std::uint64_t smem[];
  __shared__ unsigned count;
  __shared__ std::uint64_t threshold;
  __shared__ selection select;
  const unsigned kept_words = 1u << p.k_log2;
  constexpr unsigned tile_keys = Threads * tuning::items_per_thread;
  const unsigned capacity = tuning::buffer_words(p.k_log2, Threads);
  std::uint64_t* const scratch = smem + kept_words + capacity;
  const block_state s{smem,
                      smem + kept_words,
                      reinterpret_cast<unsigned*>(scratch),
                      reinterpret_cast<std::uint16_t*>(scratch),
                      &count,
                      &threshold,
                      &select};
  const unsigned lane = threadIdx.x % 32;
  for (index_t job = blockIdx.x; job < p.arrays * p.parts; job += gridDim.x) {
    const index_t array = job / p.parts, part = job % p.parts;
    const index_t begin = part * p.m / p.parts, end = (part + 1) * p.m / p.parts;
    __syncthreads();  // the previous job's outputs are read
    for (unsigned i = threadIdx.x; i < kept_words; i += Threads)
      s.kept[i] = ~std::uint64_t{0};
    if (threadIdx.x == 0) {
      count = 0;
      threshold = ~std::uint64_t{0};
    }
    for (index_t tile = begin; tile < end; tile += tile_keys) {
      // The tile's inputs, loaded first: their latency passes while the block settles and flushes.
      std::uint64_t input[tuning::items_per_thread];
#pragma unroll
      for (unsigned item = 0; item < tuning::items_per_thread; ++item) {
        const index_t i = tile + item * Threads + threadIdx.x;
        input[item] = 0;
        if (i < end)
          input[item] = p.words != nullptr ? p.words[array * p.m + i] : p.keys[array * p.n + i];
      }
      __syncthreads();  // count, threshold and the buffer settled
      const unsigned used = count;
      const bool unfilled = threshold == ~std::uint64_t{0};
      __syncthreads();  // every thread has read count before the tile's survivors add to it
      // Full, or enough survivors for a first threshold: filtering starts a tile earlier.
      if (used + tile_keys > capacity || (unfilled && used >= kept_words)) {
        flush<Threads>(s, p.k_log2);
      }
      const std::uint64_t limit = threshold;
#pragma unroll
      for (unsigned item = 0; item < tuning::items_per_thread; ++item) {
        const index_t i = tile + item * Threads + threadIdx.x;
        std::uint64_t word = ~std::uint64_t{0};
        if (i < end) {
          word = p.words != nullptr
                     ? input[item]
                     : record_word(std::uint32_t(input[item]), i, p.kind, p.descending);
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
    if (count != 0) flush<Threads>(s, p.k_log2);
    if (p.parts > 1) {  // candidates in no order: the next pass selects among them
      std::uint64_t* out = p.candidates + job * kept_words;
      for (unsigned i = threadIdx.x; i < kept_words; i += Threads)
        out[i] = s.kept[i];
    } else {
      sort_kept<Threads>(s, p.k_log2);
      const std::uint32_t* keys = p.keys + array * p.n;
      for (unsigned j = threadIdx.x; j < p.k; j += Threads) {
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

//! Enqueues one pass on `stream` in blocks of Threads (only loads the kernel under a
//! load_only_scope).
template <unsigned Threads>
void launch(const select_pass& p, cudaStream_t stream) {
  constexpr auto kernel = select_kernel<Threads>;
  allow_dynamic_shared_memory<kernel>(tuning::max_smem_bytes(Threads),
                                      "cudaFuncSetAttribute(topk select_kernel shared memory)");
  launch_with_attributes(kernel, pass_blocks(p), Threads, tuning::smem_bytes(p.k_log2, Threads),
                         stream, "topk select_kernel launch", nullptr, 0, p);
}

//! Enqueues one pass on `stream`: blocks of wide_block_threads where `sm_count` exceeds the pass's
//! jobs (one block an SM either way), else of block_threads.
inline void launch(const select_pass& p, unsigned sm_count, cudaStream_t stream) {
  if (p.arrays * p.parts < sm_count) {
    launch<tuning::wide_block_threads>(p, stream);
  } else {
    launch<tuning::block_threads>(p, stream);
  }
}

}  // namespace bitonic::kernels::topk_select
