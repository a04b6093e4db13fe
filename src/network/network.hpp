// Index math of the bitonic sorting network, in the "flip" form, shared by the CPU reference and
// every kernel.
//
// For n = 2^k the network has stages s = 1..k; stage s turns sorted runs of 2^(s-1) into sorted
// runs of 2^s in steps j = s-1..0. The first step of a stage (the "flip") compares i with
// i ^ (2^s - 1), mirroring the two halves of each 2^s block; every later step compares i with
// i ^ 2^j. Every comparator puts the smaller key (under the sort's comparator) at the lower index.
// Because of that, any n works without padding: positions >= n behave as keys greater than all
// others, so a comparator whose upper index is >= n is skipped, and k = ceil(log2 n).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "bitonic/order.hpp"  // BITONIC_HOST_DEVICE
#include "network/word128.hpp"

namespace bitonic::network {

using index_t = std::uint64_t;

//! Smallest k with 2^k >= n (0 for n <= 1): the number of stages. 64 for n > 2^63.
BITONIC_HOST_DEVICE constexpr unsigned ceil_log2(index_t n) {
  unsigned k = 0;
  while (k < 64 && (index_t{1} << k) < n)
    ++k;
  return k;
}

//! One step of the network: stage s >= 1, distance exponent j < s.
struct step {
  unsigned stage;
  unsigned distance_log2;

  BITONIC_HOST_DEVICE constexpr bool is_flip() const { return distance_log2 + 1 == stage; }

  //! XOR mask from the lower index of a comparator to its upper index.
  BITONIC_HOST_DEVICE constexpr index_t partner_mask() const {
    return is_flip() ? (index_t{2} << distance_log2) - 1 : index_t{1} << distance_log2;
  }

  //! log2 of the aligned block that contains every comparator of this step: a kernel that owns
  //! such blocks can run the step without touching keys outside them.
  BITONIC_HOST_DEVICE constexpr unsigned span_log2() const { return distance_log2 + 1; }

  //! Lower index of comparator number `c` (comparators are numbered in increasing lower index).
  //! Index is the integer type of the computation: kernels indexing a tile use 32 bits.
  template <class Index = index_t>
  BITONIC_HOST_DEVICE constexpr Index lower_index(Index c) const {
    const Index low_bits = (Index{1} << distance_log2) - 1;
    return ((c & ~low_bits) << 1) | (c & low_bits);
  }

  BITONIC_HOST_DEVICE constexpr index_t upper_index(index_t lower) const {
    return lower ^ partner_mask();
  }

  //! Number of comparators whose lower index is < n (a prefix of the numbering). Some of them may
  //! still have an upper index >= n and be skipped.
  BITONIC_HOST_DEVICE constexpr index_t comparators_below(index_t n) const {
    const unsigned j = distance_log2;
    const index_t block = index_t{2} << j, half = index_t{1} << j;
    const index_t rest = n & (block - 1);
    return (n >> (j + 1)) * half + (rest < half ? rest : half);
  }

  //! The step that follows this one in the schedule (stage s+1 starts with its flip).
  BITONIC_HOST_DEVICE constexpr step next() const {
    return distance_log2 == 0 ? step{stage + 1, stage} : step{stage, distance_log2 - 1};
  }

  //! Position of the step in the schedule, counting from 0 for (1, 0).
  BITONIC_HOST_DEVICE constexpr index_t ordinal() const {
    return index_t{stage} * (stage - 1) / 2 + (stage - 1 - distance_log2);
  }

  friend constexpr bool operator==(const step&, const step&) = default;
};

//! Number of steps of the network for 2^k keys: k(k+1)/2.
BITONIC_HOST_DEVICE constexpr index_t step_count(unsigned k) {
  return index_t{k} * (k + 1) / 2;
}

#ifdef __CUDA_ARCH__
//! On the GPU: a = min(a, b), b = max(a, b) for 64-bit unsigned words (max first when Reverse).
//! The borrow of one subtraction becomes a mask that four lop3 select by: 6 ALU instructions and
//! one IMAD, where a comparison and four selects compiled to 8 ALU ones (ptxas recomputes the
//! comparison for lack of predicate registers with 16 comparators of a step in flight).
template <bool Reverse>
__device__ __forceinline__ void exchange_by_borrow(std::uint64_t& a, std::uint64_t& b) {
  const std::uint64_t x = Reverse ? b : a, y = Reverse ? a : b;  // swap where y < x
  const unsigned xl = unsigned(x), xh = unsigned(x >> 32), yl = unsigned(y), yh = unsigned(y >> 32);
  unsigned swap, lo, hi, other_lo, other_hi;
  asm("{\n\t.reg .u32 t;\n\tsub.cc.u32 t, %1, %2;\n\tsubc.cc.u32 t, %3, %4;\n\t"
      "subc.u32 %0, 0, 0;\n\t}"
      : "=r"(swap)
      : "r"(yl), "r"(xl), "r"(yh), "r"(xh));
  // lop3 0xCA: swap ? first : second
  asm("lop3.b32 %0, %1, %2, %3, 0xCA;" : "=r"(lo) : "r"(swap), "r"(yl), "r"(xl));
  asm("lop3.b32 %0, %1, %2, %3, 0xCA;" : "=r"(hi) : "r"(swap), "r"(yh), "r"(xh));
  asm("lop3.b32 %0, %1, %2, %3, 0xCA;" : "=r"(other_lo) : "r"(swap), "r"(xl), "r"(yl));
  asm("lop3.b32 %0, %1, %2, %3, 0xCA;" : "=r"(other_hi) : "r"(swap), "r"(xh), "r"(yh));
  const std::uint64_t low = (std::uint64_t{hi} << 32) | lo;
  const std::uint64_t high = (std::uint64_t{other_hi} << 32) | other_lo;
  a = Reverse ? high : low;
  b = Reverse ? low : high;
}

//! On the GPU: the same for 128-bit words (records of 8-byte keys, kernels/record_io.cuh): the
//! borrow of one chain of four subtractions, eight lop3; the comparison and the selects took 15.
template <bool Reverse>
__device__ __forceinline__ void exchange_by_borrow(word128& a, word128& b) {
  unsigned x[4], y[4];  // swap where y < x
  std::memcpy(x, Reverse ? &b : &a, sizeof x);
  std::memcpy(y, Reverse ? &a : &b, sizeof y);
  unsigned swap;
  asm("{\n\t.reg .u32 t;\n\tsub.cc.u32 t, %1, %2;\n\tsubc.cc.u32 t, %3, %4;\n\t"
      "subc.cc.u32 t, %5, %6;\n\tsubc.cc.u32 t, %7, %8;\n\tsubc.u32 %0, 0, 0;\n\t}"
      : "=r"(swap)
      : "r"(y[0]), "r"(x[0]), "r"(y[1]), "r"(x[1]), "r"(y[2]), "r"(x[2]), "r"(y[3]), "r"(x[3]));
  unsigned low[4], high[4];
#pragma unroll
  for (unsigned i = 0; i < 4; ++i) {  // lop3 0xCA: swap ? first : second
    asm("lop3.b32 %0, %1, %2, %3, 0xCA;" : "=r"(low[i]) : "r"(swap), "r"(y[i]), "r"(x[i]));
    asm("lop3.b32 %0, %1, %2, %3, 0xCA;" : "=r"(high[i]) : "r"(swap), "r"(x[i]), "r"(y[i]));
  }
  std::memcpy(Reverse ? &b : &a, low, sizeof low);
  std::memcpy(Reverse ? &a : &b, high, sizeof high);
}

//! On the GPU, for keys that are not numbers (a caller's keys, bitonic.cuh): the comparison as a
//! word of all ones or zero, and each 32-bit word of the two keys chosen by one lop3 with it, so
//! that no predicate stays live per comparator in flight (as in exchange_by_borrow).
template <class Key, class Less>
__device__ __forceinline__ void exchange_by_mask(Key& a, Key& b, Less less) {
  constexpr unsigned words = sizeof(Key) / 4;
  unsigned x[words], y[words];
  std::memcpy(x, &a, sizeof a);
  std::memcpy(y, &b, sizeof b);
  const unsigned swap = 0u - unsigned(less(b, a));
#pragma unroll
  for (unsigned i = 0; i < words; ++i) {
    unsigned low, high;  // lop3 0xCA: swap ? first : second
    asm("lop3.b32 %0, %1, %2, %3, 0xCA;" : "=r"(low) : "r"(swap), "r"(y[i]), "r"(x[i]));
    asm("lop3.b32 %0, %1, %2, %3, 0xCA;" : "=r"(high) : "r"(swap), "r"(x[i]), "r"(y[i]));
    x[i] = low;
    y[i] = high;
  }
  std::memcpy(&a, x, sizeof a);
  std::memcpy(&b, y, sizeof b);
}
#endif

//! Puts the smaller key (under `less`) at `a`, the larger at `b`.
template <class Key, class Less>
BITONIC_HOST_DEVICE inline void compare_exchange(Key& a, Key& b, Less less) {
#ifdef __CUDA_ARCH__
  // 64-bit words under the orders of key_order.hpp, whose Less says whether it reverses `<`.
  if constexpr ((std::is_same_v<Key, std::uint64_t> || std::is_same_v<Key, word128>)&&requires {
                  Less::reverses;
                }) {
    exchange_by_borrow<Less::reverses>(a, b);
    return;
  }
  if constexpr (!std::is_arithmetic_v<Key> && sizeof(Key) % 4 == 0) {
    exchange_by_mask(a, b, less);
    return;
  }
#endif
  const Key x = a, y = b;
  const bool swap = less(y, x);
  a = swap ? y : x;
  b = swap ? x : y;
}

}  // namespace bitonic::network

namespace bitonic::merge {

//! How many of the sorted keys other[0, count) go before `key` when `key`'s run and `other` are
//! merged: keys of the left run go before equal keys of the right run. O(log count) comparisons.
//! A rank per key, as seed 001 merged (block_merge); merges cut into pieces use path_split.
template <class Key, class Less>
BITONIC_HOST_DEVICE inline network::index_t keys_before(const Key* other, network::index_t count,
                                                        const Key& key, bool key_is_left,
                                                        Less less) {
  network::index_t lo = 0, hi = count;
  while (lo < hi) {  // first position of `other` that does not go before `key`
    const network::index_t mid = lo + (hi - lo) / 2;
    const bool goes_before = key_is_left ? less(other[mid], key) : !less(key, other[mid]);
    if (goes_before) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

//! Where key `i` lands when the sorted runs of 2^run_log2 keys are merged pairwise (block_merge,
//! seed 001): its rank in its own run plus the number of keys of the partner run that go before
//! it. The destinations of a pair of runs are a permutation of its positions.
template <class Key, class Less>
BITONIC_HOST_DEVICE inline network::index_t destination(const Key* keys, network::index_t n,
                                                        network::index_t i, unsigned run_log2,
                                                        Less less) {
  using network::index_t;
  const index_t run = index_t{1} << run_log2;
  const index_t pair_base = i & ~(2 * run - 1);
  const bool in_left = (i & run) == 0;
  const index_t own_rank = i - pair_base - (in_left ? 0 : run);
  const index_t partner_begin = in_left ? pair_base + run : pair_base;
  const index_t partner_first = partner_begin < n ? partner_begin : n;
  const index_t partner_end = partner_begin + run < n ? partner_begin + run : n;
  return pair_base + own_rank +
         keys_before(keys + partner_first, partner_end - partner_first, keys[i], in_left, less);
}

//! Merge path, the one search every merge of two runs is cut by: how many keys of the sorted `a`
//! (the left run) are among the first `diagonal` keys of the merge of a and b, a's keys before
//! equal keys of b. Splitting both inputs there lets a merge proceed in independent pieces.
//! O(log min(a_count, b_count)) comparisons. On the device, an aligned group of Lanes lanes of a
//! warp may search together, Lanes probes a round (fewer dependent loads); all of them must call
//! it with the same arguments, and every lane returns the answer. Lanes = 1: one thread alone.
//! Index: the counts' type (32 bits where they fit, as in a tile: fewer instructions a probe).
template <unsigned Lanes = 1, class Index = network::index_t, class Key, class Less>
BITONIC_HOST_DEVICE inline Index path_split(const Key* a, std::type_identity_t<Index> a_count,
                                            const Key* b, std::type_identity_t<Index> b_count,
                                            std::type_identity_t<Index> diagonal, Less less) {
  static_assert(Lanes >= 1 && Lanes <= 32 && (Lanes & (Lanes - 1)) == 0,
                "lanes: a power-of-two group of a warp");
  static_assert(std::is_unsigned_v<Index> && (Lanes == 1 || sizeof(Index) == 8),
                "unsigned counts; a group's probes multiply a span by its lanes: 64 bits");
  using index_t = Index;
  // a[i] is taken before b[diagonal - 1 - i] exactly for the i below the answer, in [lo, hi].
  index_t lo = diagonal > b_count ? diagonal - b_count : 0;
  index_t hi = diagonal < a_count ? diagonal : a_count;
  const auto a_first = [&](index_t i) { return !less(b[diagonal - 1 - i], a[i]); };
#if defined(__CUDA_ARCH__)
  if constexpr (Lanes > 1) {
    const unsigned lane = threadIdx.x % Lanes;
    const unsigned group = unsigned(~0ull >> (64 - Lanes)) << (threadIdx.x % 32 - lane);
    while (lo < hi) {
      const index_t span = hi - lo, probe = lo + span * lane / Lanes;  // ascending over lanes
      const unsigned below = __popc(__ballot_sync(group, a_first(probe)) & group);
      const index_t next_lo = below == 0 ? lo : lo + span * (below - 1) / Lanes + 1;
      hi = below == Lanes ? hi : lo + span * below / Lanes;
      lo = next_lo;
    }
  } else  // on the host, the only branch
#endif
  {
    while (lo < hi) {  // one thread alone
      const index_t mid = lo + (hi - lo) / 2;
      if (a_first(mid)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
  }
  return lo;
}

}  // namespace bitonic::merge
