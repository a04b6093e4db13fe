// Network steps on the keys one thread holds in registers, shared by the optimized kernels. The
// register index m is a small local network: a kernel lays its keys out so that the global step
// it runs becomes register step J (partner m ^ 2^J, or m ^ (2^(J+1) - 1) for a flip), with the
// lower register always holding the lower global index. Keys that do not exist (global index
// >= n) are marked by a clear bit in `valid`; a comparator whose upper key is missing is skipped,
// as the network's rule for arbitrary n says.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "network/network.hpp"

namespace bitonic::kernels {

//! A bit per register of a thread with K registers of keys.
template <unsigned K>
using register_mask = std::conditional_t<(K > 32), unsigned long long, unsigned>;

//! Step on registers: distance 2^J, or the flip of each 2^(J+1) block of registers.
template <unsigned J, bool Flip, unsigned K, class Word, class Mask, class Less>
__device__ __forceinline__ void register_step(Word (&r)[K], Mask valid, Less less) {
  static_assert(K <= 8 * sizeof(Mask) && (2u << J) <= K,
                "the step must stay inside one thread's registers, one valid bit each");
  constexpr unsigned mask = Flip ? (2u << J) - 1 : 1u << J;
#pragma unroll
  for (unsigned m = 0; m < K; ++m) {
    if ((m & (1u << J)) == 0 && ((valid >> (m ^ mask)) & 1u)) {
      network::compare_exchange(r[m], r[m ^ mask], less);
    }
  }
}

//! Plain register steps J = Hi, Hi-1, ..., Lo (none when Hi < Lo).
template <int Hi, int Lo, unsigned K, class Word, class Mask, class Less>
__device__ __forceinline__ void register_steps_down(Word (&r)[K], Mask valid, Less less) {
  if constexpr (Hi >= Lo) {
    register_step<unsigned(Hi), false>(r, valid, less);
    register_steps_down<Hi - 1, Lo>(r, valid, less);
  }
}

//! Stage S of the network on a thread's registers, all of them keys: the flip of each block of 2^S
//! registers, then the plain steps S-2..0.
template <unsigned S, unsigned K, class Word, class Less>
__device__ __forceinline__ void register_stage(Word (&r)[K], Less less) {
  constexpr auto all = ~register_mask<K>{0};
  register_step<S - 1, true>(r, all, less);
  register_steps_down<int(S) - 2, 0>(r, all, less);
}

//! Stages 1..S on a thread's registers: each block of 2^S registers ends sorted under `less`.
template <unsigned S, unsigned K, class Word, class Less>
__device__ __forceinline__ void register_stages(Word (&r)[K], Less less) {
  if constexpr (S >= 1) {
    register_stages<S - 1>(r, less);
    register_stage<S>(r, less);
  }
}

//! An opaque copy of v: the compiler cannot reuse address arithmetic done with v before this
//! point, nor hoist what depends on it out of a loop. Without it, the address of every register
//! (32 64-bit values) is kept live from a tile's loads to its stores, and spills.
template <class T>
__device__ __forceinline__ T opaque(T v) {
  static_assert(sizeof(T) == 4, "32-bit values");
  asm volatile("" : "+r"(v));
  return v;
}

//! Local index of register m of thread t when the registers hold local bits [base, base + Log2K)
//! and the thread index fills the other bits in order (lanes take the lowest free bits).
template <unsigned Log2K, unsigned Base>
__device__ __forceinline__ unsigned spread_index(unsigned t, unsigned m) {
  constexpr unsigned below = (1u << Base) - 1;
  return (t & below) | (m << Base) | ((t & ~below) << Log2K);
}

}  // namespace bitonic::kernels
