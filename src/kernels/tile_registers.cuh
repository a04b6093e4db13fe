// A tile of 2^tile_log2 consecutive keys held in registers by exchange_threads threads, for the
// optimized path's tail kernel (and any later kernel that runs plain steps on whole tiles). A
// thread holds 2^exchange_keys_log2 keys whose tile indices differ only in a field of that many
// bits, so a network step on a bit of the field is a register compare-exchange. A round runs the
// steps on the field's bits; between rounds the field moves down through shared memory (an
// exchange). Loads and stores use the field at the top bits: lanes then read consecutive keys.
#pragma once

#include <cuda_runtime.h>

#include "bitonic/key_order.hpp"
#include "bitonic/network.hpp"
#include "kernels/register_network.cuh"
#include "plan/tuning.hpp"

namespace bitonic::kernels {

//! The register field of the round that starts with step `Top`: its top bit is Top.
template <unsigned Top, unsigned Log2K>
constexpr unsigned field_base = Top + 1 >= Log2K ? Top + 1 - Log2K : 0;

template <bool Full, class Key>
struct tile_registers {
  using T = tuning::optimized<sizeof(Key)>;
  using word = ordered_word<Key>;
  using word_type = typename word::type;
  static constexpr unsigned log_k = T::exchange_keys_log2, K = 1u << log_k;
  static constexpr unsigned io_base = T::tile_log2 - log_k;  //!< lanes on consecutive keys

  word_type r[K];
  word_type* smem;
  unsigned t;       //!< thread index (opaque: see `opaque`)
  unsigned tile_n;  //!< keys of this tile below n (tile_keys when Full)

  //! Tile index of register m: a per-thread part plus a constant (the two have no common bit).
  template <unsigned Base>
  __device__ unsigned local(unsigned m) const {
    return spread_index<log_k, Base>(t, 0) + (m << Base);
  }
  template <unsigned Base>
  __device__ unsigned valid() const {
    if constexpr (Full) return all_valid;
    return valid_registers<log_k>(tile_n, [&](unsigned m) { return local<Base>(m); });
  }

  __device__ void load(const Key* tile_keys) {
    const unsigned v = valid<io_base>();
#pragma unroll
    for (unsigned m = 0; m < K; ++m) {
      if ((v >> m) & 1u) r[m] = word::encode(tile_keys[local<io_base>(m)]);
    }
  }
  __device__ void store(Key* tile_keys) {
    t = opaque(t);  // recompute the addresses instead of keeping the loads' live
    const unsigned v = valid<io_base>();
#pragma unroll
    for (unsigned m = 0; m < K; ++m) {
      if ((v >> m) & 1u) tile_keys[local<io_base>(m)] = word::decode(r[m]);
    }
  }

  //! Moves the keys from register field From to field To through shared memory.
  template <unsigned From, unsigned To>
  __device__ void exchange() {
    if constexpr (From != To) {
      // padded() of a sum of numbers without common bits is the sum of their padded()s, so each
      // access is one base register plus a constant offset.
      word_type* from = smem + T::padded(local<From>(0));
      word_type* to = smem + T::padded(local<To>(0));
      __syncthreads();  // every thread has read the previous exchange (or tile)
#pragma unroll
      for (unsigned m = 0; m < K; ++m)
        from[T::padded(m << From)] = r[m];
      __syncthreads();
#pragma unroll
      for (unsigned m = 0; m < K; ++m)
        r[m] = to[T::padded(m << To)];
    }
  }

  //! Plain steps j = Top..0 (the flip form's steps after a stage's flip). The registers hold
  //! field From on entry and field 0 on return.
  template <unsigned Top, unsigned From, class Less>
  __device__ void rounds(Less less) {
    constexpr unsigned base = field_base<Top, log_k>;
    exchange<From, base>();
    register_steps_down<int(Top - base), 0>(r, valid<base>(), less);
    if constexpr (base > 0) rounds<base - 1, base>(less);
  }
};

}  // namespace bitonic::kernels
