// The sample split: the partition step of a sample sort, for arrays past the L2. It cuts n keys
// into B buckets such that, under the sort's order, no key of a bucket sorts after a key of a
// later bucket, writes the keys bucket by bucket into another buffer and fills a bucket_table
// (buckets.hpp) saying where each bucket is; sorting every bucket on its own then sorts the whole.
// Four chained launches, all on the device (no host synchronisation, so a graph can capture it):
// - sample_kernel: one block sorts B * samples_per_bucket keys from fixed positions with the
//   network (network.hpp; in registers, by shuffles and, 15 steps of 91, through shared memory)
//   and keeps every samples_per_bucket-th as a splitter, stored breadth-first (Eytzinger): a
//   key's bucket is then a branch-free descent of log2 B levels whose nodes sit side by side in
//   shared memory (a sorted array's binary search put a level's probes in one or two banks:
//   8-way conflicts). Integer words under the library's orders look their bucket up instead:
//   a table of the splitters before each range of leading bits narrows it to the few splitters
//   in the word's range (shared_splitters, log 88).
// - count_kernel: one read of the keys; each block counts its range's keys a bucket with plain
//   shared-memory atomics (warp aggregation by __match_any_sync was ~5x slower) and adds its
//   counts to the buckets' lengths.
// - scan_kernel: a block a bucket turns the bucket's counts into each block's first output index
//   and writes the bucket's entries of the table.
// - scatter_kernel: one read and one write of the keys; each block ranks a tile's keys by bucket
//   (a counting sort in shared memory; stable where asked: warps rank their keys by ballots, so
//   that every bucket holds its keys in input order) and writes each bucket's run of the tile
//   coalesced.
// At 2^27 keys this replaces 6 merge passes: 13 merge stages past a tile become 7 over buckets of
// ~2^20 keys (docs/PERFORMANCE.md log 57, with the probes before it); sample_refine.cuh cuts the
// buckets again, into sub-buckets of about a tile, for the larger arrays (log 69). The count and
// scatter of a tile (count_tile, scatter_tile) serve both levels.
// The split reads its input through split_input: the keys, or a record sort's words made from the
// caller's arrays as they are read (record_io.cuh).
// Equality buckets (as IPS4o's): where the sample repeats a splitter, the bucket between two equal
// splitters is empty by the descent (its range [s, s) holds nothing), so keys equal to the last of
// them go there instead of to the bucket after it; such a bucket holds equal keys only and needs no
// merge (bucket_table::merges). Without them all-equal keys were one bucket of n that took every
// merge; the check costs a key one uniform branch where no splitter repeats (log 59).
#pragma once

#include <cuda_runtime.h>
#include <cuda/std/bit>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "bitonic/order.hpp"
#include "kernels/buckets.hpp"
#include "kernels/launch.cuh"
#include "kernels/record_io.cuh"
#include "kernels/tuning.hpp"
#include "network/key_order.hpp"
#include "network/network.hpp"

namespace bitonic::kernels::sample_split {

using network::index_t;

template <class Key>
using word_t = typename ordered_word<Key>::type;

//! The blocks that count and scatter n keys: one per tile up to split_blocks, each owning a
//! contiguous range of whole tiles (the last tile of the array may be partial).
template <class Tuning>
struct block_ranges {
  index_t n = 0;
  unsigned blocks = 1;

  __host__ __device__ static block_ranges of(index_t n) {
    const index_t tiles = (n + Tuning::tile_keys - 1) / Tuning::tile_keys;
    return {
        n, unsigned(tiles < 1 ? 1 : (tiles < Tuning::split_blocks ? tiles : Tuning::split_blocks))};
  }
  //! Block g's first key (g = blocks: n): its tiles are spread as evenly as whole tiles allow.
  __host__ __device__ index_t begin(unsigned g) const {
    const index_t tiles = (n + Tuning::tile_keys - 1) / Tuning::tile_keys;
    const index_t q = tiles / blocks, r = tiles % blocks;
    const index_t key = (g * q + (g < r ? g : r)) * Tuning::tile_keys;
    return key < n ? key : n;
  }
};

//! A warp's exclusive prefix sum of `value` over its lanes (all 32 must call); `total` gets the
//! sum of all lanes.
template <class T>
__device__ T warp_exclusive_scan(T value, T& total) {
  const unsigned lane = threadIdx.x % 32;
  T inclusive = value;
#pragma unroll
  for (unsigned d = 1; d < 32; d *= 2) {
    const T other = __shfl_up_sync(~0u, inclusive, d);
    if (lane >= d) inclusive += other;
  }
  total = __shfl_sync(~0u, inclusive, 31);
  return inclusive - value;
}

//! Whether a split of words W under Less finds a word's bucket through shared_splitters' cells
//! (integer words under the library's orders) rather than by the tree's descent.
template <class W, class Less>
inline constexpr bool finds_by_cells_v = std::is_integral_v<W> &&
                                         (std::is_same_v<Less, ascending_less> ||
                                          std::is_same_v<Less, descending_less>);

//! The unsigned integer of an integer word's bits (cells index by it), else the word itself.
template <class W, bool = std::is_integral_v<W>>
struct cell_word {
  using type = W;
};
template <class W>
struct cell_word<W, true> {
  using type = std::make_unsigned_t<W>;
};

//! The splitters in a block's shared memory: the breadth-first tree of buckets - 1 words, the
//! same words in order, and which buckets are equality buckets. Under finds_by_cells_v also
//! `cells`: the words from the least splitter to the greatest cut into 4 * buckets ranges of
//! equal width by their leading bits (the first also takes the words below, the last those
//! above), and for each range the splitters before it (first[c]), so that a word's bucket is
//! among the few between first[c] and first[c + 1] of its range c: two shared loads and, where
//! splitters fall in its range, a search of them, where the descent took buckets_log2 dependent
//! loads and compares (log 88). Skewed keys, whose ranges hold many splitters, search more of
//! them; every word finds the descent's bucket.
template <class Tuning, class W>
struct shared_splitters {
  using U = typename cell_word<W>::type;
  static constexpr unsigned count = Tuning::buckets - 1;  //!< splitters
  static constexpr unsigned cells_log2 = Tuning::buckets_log2 + 2;
  static constexpr unsigned cells = 1u << cells_log2;
  W tree[count];
  W sorted[count];
  unsigned char first[cells + 1];
  unsigned char equal[Tuning::buckets];
  U base;
  unsigned shift;

  //! The node of the in-order splitter j: node (level l, place p) holds in-order splitter
  //! (2p + 1) * 2^(levels - 1 - l) - 1.
  __device__ static unsigned node_of(unsigned j) {
    const unsigned zeros = unsigned(__ffs(int(j + 1))) - 1;  // of j + 1
    return (1u << (Tuning::buckets_log2 - 1 - zeros)) - 1 + ((j + 1) >> (zeros + 1));
  }

  //! W's bits as an unsigned integer whose `<` is `Less` on words.
  template <class Less>
  __device__ static U ordered(W w) {
    U u = U(w);
    if constexpr (std::is_signed_v<W>) u ^= U{1} << (sizeof(U) * 8 - 1);
    if constexpr (Less::reverses) u = ~u;
    return u;
  }

  //! The range of u (ordered): 0 up to the least splitter, then by its bits past `low`'s from
  //! bit `by` on, the greatest ones in the last range. Non-decreasing in u.
  __device__ static unsigned cell_of(U u, U low, unsigned by) {
    if (u < low) return 0;
    const U c = U(u - low) >> by;
    return c < U{cells - 1} ? unsigned(c) : cells - 1;
  }

  //! The bucket of word w: the number of splitters that w is not less than, so that a key equal to
  //! a splitter goes to the bucket after it; or, where w equals a repeated splitter and
  //! `any_equal`, the equality bucket before that one.
  template <class Less>
  __device__ __forceinline__ unsigned bucket_of(W w, bool any_equal, Less less) const {
    unsigned b;
    if constexpr (finds_by_cells_v<W, Less>) {
      const unsigned c = cell_of(ordered<Less>(w), base, shift);
      unsigned lo = first[c], left = first[c + 1] - lo;  // b in [lo, lo + left]
      while (left != 0) {
        const unsigned half = left / 2;
        if (!less(w, sorted[lo + half])) {
          lo += half + 1;
          left -= half + 1;
        } else {
          left = half;
        }
      }
      b = lo;
    } else {  // the descent: to the right where w is not less than a node
      unsigned i = 0;
#pragma unroll
      for (unsigned level = 0; level < Tuning::buckets_log2; ++level)
        i = 2 * i + 1 + unsigned(!less(w, tree[i]));
      b = i - count;
    }
    // w is not less than splitter b - 1; equal to it unless that splitter is less than w.
    if (any_equal && b != 0 && equal[b - 1] != 0 && !less(sorted[b - 1], w)) --b;
    return b;
  }

  //! Copies the splitters (breadth-first in global memory) and the equality buckets, and lays out
  //! the cells for `less` (the whole block; synchronises); returns whether any bucket is an
  //! equality bucket.
  template <class Less>
  __device__ bool load(const W* splitters, const unsigned* equal_buckets, Less) {
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) {
      tree[i] = splitters[i];
      sorted[i] = splitters[node_of(i)];
    }
    if constexpr (finds_by_cells_v<W, Less>) {
      const U low = ordered<Less>(splitters[node_of(0)]);
      const U high = ordered<Less>(splitters[node_of(count - 1)]);  // not less than low
      const auto width = unsigned(cuda::std::bit_width(U(high - low)));
      const unsigned by = width > cells_log2 ? width - cells_log2 : 0;
      if (threadIdx.x == 0) base = low, shift = by;
      // Splitter j's ranges: those past splitter j - 1's up to its own have j splitters before
      // them; those past the greatest splitter's, all of them.
      for (unsigned j = threadIdx.x; j <= count; j += blockDim.x) {
        const unsigned from =
            j == 0 ? 0 : cell_of(ordered<Less>(splitters[node_of(j - 1)]), low, by) + 1;
        const unsigned to =
            j == count ? cells : cell_of(ordered<Less>(splitters[node_of(j)]), low, by);
        for (unsigned c = from; c <= to; ++c)
          first[c] = static_cast<unsigned char>(j);
      }
    }
    bool any = false;
    for (unsigned b = threadIdx.x; b < Tuning::buckets; b += blockDim.x) {
      equal[b] = static_cast<unsigned char>(equal_buckets[b]);
      any = any || equal_buckets[b] != 0;
    }
    return __syncthreads_or(any) != 0;
  }
};

//! What the split reads: keys (keys_only), or the 64-bit words of a record sort, made from the
//! caller's keys and values as they are read (record_io).
template <class Key, class IO>
struct split_input {
  const Key* keys = nullptr;
  IO io{};

  __device__ Key operator[](index_t i) const {
    if constexpr (is_record_io_v<IO>) {
      static_assert(std::is_same_v<Key, typename IO::word_type>, "records split as their words");
      return io.word(i);
    } else {
      return keys[i];
    }
  }

  //! Asks the L2 for what operator[] reads for [first, first + count) (prefetch_l2).
  __device__ void prefetch(index_t first, unsigned count) const {
    if constexpr (is_record_io_v<IO>) {
      prefetch_l2(io.keys_in + first, std::size_t{count} * sizeof(*io.keys_in));
      if (io.values_in == nullptr) return;
      if constexpr (std::is_same_v<IO, record_io>) {  // 4-byte values
        prefetch_l2(io.values_in + first, std::size_t{count} * sizeof(*io.values_in));
      } else {  // wide_record_io: io.value_bytes each
        prefetch_l2(static_cast<const unsigned char*>(io.values_in) + first * io.value_bytes,
                    std::size_t{count} * io.value_bytes);
      }
    } else {
      prefetch_l2(keys + first, std::size_t{count} * sizeof(Key));
    }
  }
};

//! The distance in a tile between a thread's keys k and k + 1 (tile_place).
template <class Tuning, bool WarpMajor>
inline constexpr unsigned tile_stride = WarpMajor ? 32 : Tuning::block_threads;

//! The place in its tile of a thread's key k (load_tile). WarpMajor: warp w holds places
//! [w * 32 * K, (w + 1) * 32 * K), its key k at w * 32 * K + 32 * k + lane, so that a warp's keys
//! are consecutive places in the order it ranks them (what makes scatter_tile stable). Else
//! block-strided, key k at k * block_threads + thread: each load of the block reads block_threads
//! consecutive keys, which the count and the unstable scatter read faster (log 86). Each load of
//! a warp reads 32 consecutive keys either way.
template <class Tuning, bool WarpMajor>
__device__ __forceinline__ unsigned tile_place(unsigned k) {
  const unsigned first = WarpMajor
                             ? threadIdx.x / 32 * (32 * Tuning::keys_per_thread) + threadIdx.x % 32
                             : threadIdx.x;
  return first + tile_stride<Tuning, WarpMajor> * k;
}

//! Loads a tile's keys from in[base, base + tile_n), a thread's key k from base + tile_place(k),
//! every address an immediate offset of one pointer; keys past tile_n are left alone.
template <class Tuning, bool WarpMajor, class Key, class IO>
__device__ __forceinline__ void load_tile(Key (&keys)[Tuning::keys_per_thread],
                                          const split_input<Key, IO>& in, index_t base,
                                          unsigned tile_n) {
  const index_t at = base + tile_place<Tuning, WarpMajor>(0);
#pragma unroll
  for (unsigned k = 0; k < Tuning::keys_per_thread; ++k) {
    if (tile_place<Tuning, WarpMajor>(k) < tile_n)
      keys[k] = in[at + tile_stride<Tuning, WarpMajor> * k];
  }
}

//! Calls run(keys, tile_n) for every tile of this block's range of `ranges` in turn, its tile_n
//! keys loaded by load_tile<WarpMajor>; where Prefetch, the next tile is prefetched to the L2
//! while run works on this one (the scatter; the count, at 32 registers, spilled and lost time:
//! log 85).
template <bool Prefetch, bool WarpMajor, class Tuning, class Key, class IO, class Run>
__device__ void for_each_range_tile(const split_input<Key, IO>& in, block_ranges<Tuning> ranges,
                                    Run run) {
  const index_t end = ranges.begin(blockIdx.x + 1);
  const auto tile_at = [&](index_t base) {
    return unsigned(end - base < Tuning::tile_keys ? end - base : Tuning::tile_keys);
  };
  for (index_t base = ranges.begin(blockIdx.x); base < end; base += Tuning::tile_keys) {
    Key keys[Tuning::keys_per_thread];
    load_tile<Tuning, WarpMajor>(keys, in, base, tile_at(base));
    if (Prefetch && end - base > Tuning::tile_keys)
      in.prefetch(base + Tuning::tile_keys, tile_at(base + Tuning::tile_keys));
    run(keys, tile_at(base));
  }
}

//! Stores (Store) or loads a thread's Rounds consecutive words at `at` in 16-byte pieces, so that
//! a warp's accesses of 32 such runs are conflict-free.
template <unsigned Rounds, class W>
__device__ __forceinline__ void store_words(W* at, const W (&v)[Rounds]) {
  static_assert(Rounds * sizeof(W) % 16 == 0, "whole 16-byte pieces");
  if constexpr (sizeof(W) == 16) {
#pragma unroll
    for (unsigned k = 0; k < Rounds; ++k)
      at[k] = v[k];
  } else if constexpr (sizeof(W) == 4) {
    const auto u = [&](unsigned i) { return cuda::std::bit_cast<unsigned>(v[i]); };
#pragma unroll
    for (unsigned k = 0; k < Rounds / 4; ++k)
      reinterpret_cast<uint4*>(at)[k] =
          make_uint4(u(4 * k), u(4 * k + 1), u(4 * k + 2), u(4 * k + 3));
  } else {
    const auto u = [&](unsigned i) { return cuda::std::bit_cast<unsigned long long>(v[i]); };
#pragma unroll
    for (unsigned k = 0; k < Rounds / 2; ++k)
      reinterpret_cast<ulonglong2*>(at)[k] = make_ulonglong2(u(2 * k), u(2 * k + 1));
  }
}
template <unsigned Rounds, class W>
__device__ __forceinline__ void load_words(W (&v)[Rounds], const W* at) {
  if constexpr (sizeof(W) == 16) {
#pragma unroll
    for (unsigned k = 0; k < Rounds; ++k)
      v[k] = at[k];
  } else if constexpr (sizeof(W) == 4) {
#pragma unroll
    for (unsigned k = 0; k < Rounds / 4; ++k) {
      const uint4 x = reinterpret_cast<const uint4*>(at)[k];
      v[4 * k] = cuda::std::bit_cast<W>(x.x), v[4 * k + 1] = cuda::std::bit_cast<W>(x.y);
      v[4 * k + 2] = cuda::std::bit_cast<W>(x.z), v[4 * k + 3] = cuda::std::bit_cast<W>(x.w);
    }
  } else {
#pragma unroll
    for (unsigned k = 0; k < Rounds / 2; ++k) {
      const ulonglong2 x = reinterpret_cast<const ulonglong2*>(at)[k];
      v[2 * k] = cuda::std::bit_cast<W>(x.x), v[2 * k + 1] = cuda::std::bit_cast<W>(x.y);
    }
  }
}

//! Sorts the block's Rounds * blockDim.x words, thread t holding positions t * Rounds + r in v[r],
//! by the network's steps (network.hpp: each pairs position i with i ^ partner_mask, the lower one
//! keeping the lesser word): steps within a thread's words in registers, within a warp's by
//! shuffles, the rest through `smem` (a word a position) between two barriers. 15 of the 91 steps
//! of 2^13 words need the block: one barrier each step took 75 us in all (log 57).
template <unsigned Log2, unsigned Rounds, class W, class Less>
__device__ void sort_block_words(W (&v)[Rounds], W* smem, Less less) {
  constexpr unsigned register_bits = network::ceil_log2(Rounds), warp_bits = register_bits + 5;
  static_assert(Rounds == 1u << register_bits, "a power of two of words a thread");
  const unsigned base = threadIdx.x * Rounds;
#pragma unroll
  for (unsigned stage = 1; stage <= Log2; ++stage) {
#pragma unroll
    for (unsigned d = stage; d-- > 0;) {
      const network::step st{stage, d};
      const auto mask = unsigned(st.partner_mask());
      constexpr unsigned in_thread = Rounds - 1;
      W other[Rounds];
      if (d < register_bits) {
#pragma unroll
        for (unsigned r = 0; r < Rounds; ++r)
          other[r] = v[r ^ mask];
      } else if (d < warp_bits) {
#pragma unroll
        for (unsigned r = 0; r < Rounds; ++r)
          other[r] = shuffle_xor(v[r ^ (mask & in_thread)], mask >> register_bits);
      } else {
        store_words(smem + base, v);
        __syncthreads();
        W partner[Rounds];
        load_words(partner, smem + (base ^ (mask & ~in_thread)));
#pragma unroll
        for (unsigned r = 0; r < Rounds; ++r)
          other[r] = partner[r ^ (mask & in_thread)];
        __syncthreads();  // every load before the next step's stores
      }
#pragma unroll
      for (unsigned r = 0; r < Rounds; ++r) {
        const bool lower = ((base + r) >> d & 1u) == 0;
        const bool other_less = less(other[r], v[r]), less_other = less(v[r], other[r]);
        if (lower ? other_less : less_other) v[r] = other[r];
      }
    }
  }
}

//! The whole block (Samples / Rounds threads) sorts the words of Samples of n keys into `sample`
//! (Samples words of shared memory) and synchronises: sample i is key_word(at) for at = floor(i *
//! n / Samples) plus half a stride, as q/r so that nothing overflows (fewer keys than Samples are
//! sampled several times each); a thread's Rounds loads are all in flight at once.
template <unsigned Samples, unsigned Rounds, class W, class KeyWord, class Less>
__device__ void sort_sample(W* sample, index_t n, KeyWord key_word, Less less) {
  const index_t q = n / Samples, r = n % Samples;
  W words[Rounds];
#pragma unroll
  for (unsigned k = 0; k < Rounds; ++k) {
    const index_t i = threadIdx.x * Rounds + k;
    words[k] = key_word(i * q + (i * r) / Samples + q / 2);
  }
  sort_block_words<network::ceil_log2(Samples)>(words, sample, less);
  store_words(sample + threadIdx.x * Rounds, words);
  __syncthreads();
}

//! The whole block writes the 2^BucketsLog2 - 1 splitters `splitter(j)` (in-order j, a sorted
//! sample's words) to `tree` breadth-first: node i of level l (i = 2^l - 1 + p) is the in-order
//! splitter (2p + 1) * 2^(levels - 1 - l) - 1. And `equal`: bucket b (between splitters b - 1 and
//! b) is an equality bucket where those two are equal.
template <unsigned BucketsLog2, class W, class Splitter, class Less>
__device__ void write_splitters(Splitter splitter, W* tree, unsigned* equal, Less less) {
  constexpr unsigned buckets = 1u << BucketsLog2;
  for (unsigned node = threadIdx.x; node < buckets - 1; node += blockDim.x) {
    const unsigned level = network::ceil_log2(node + 2) - 1;  // floor(log2(node + 1))
    const unsigned p = node + 1 - (1u << level);
    tree[node] = splitter(((2 * p + 1) << (BucketsLog2 - 1 - level)) - 1);
  }
  for (unsigned b = threadIdx.x; b < buckets; b += blockDim.x)
    equal[b] = b != 0 && b + 1 < buckets && !less(splitter(b - 1), splitter(b)) ? 1u : 0u;
}

//! One block: sorts the words of `samples` keys at fixed, evenly spread positions and writes the
//! buckets - 1 splitters (write_splitters), splitter j the sample's ((j + 1) *
//! samples_per_bucket - 1)-th word. Fewer keys than samples are sampled several times each.
template <class Key, class Less, class IO>
__global__ void __launch_bounds__(tuning::sample_split<sizeof(Key)>::sample_threads)
    sample_kernel(split_input<Key, IO> in, index_t n, split_memory m, Less less) {
  using T = tuning::sample_split<sizeof(Key)>;
  using W = word_t<Key>;
  static_assert(T::samples % T::sample_threads == 0, "whole rounds of samples");
  constexpr unsigned rounds = T::samples / T::sample_threads;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  W* const sample = reinterpret_cast<W*>(smem_bytes);
  W* const splitters = static_cast<W*>(m.splitters);
  wait_for_previous_pass();
  // The sums the count kernel adds to, and the most merges the scan kernel raises.
  for (unsigned b = threadIdx.x; b < T::buckets; b += T::sample_threads)
    m.lengths[b] = 0;
  if (threadIdx.x == 0) *m.most_merges = 0;
  sort_sample<T::samples, rounds>(
      sample, n, [&](index_t at) { return n == 0 ? W{} : word_of<Key>(in[at]); }, less);
  write_splitters<T::buckets_log2>(
      [&](unsigned j) { return sample[(j + 1) * T::samples_per_bucket - 1]; }, splitters, m.equal,
      less);
}

//! Adds a tile's tile_n keys (load_tile<false>'s) to `histogram`, a bucket each (shared atomics).
template <class Tuning, class Key, class Less>
__device__ __forceinline__ void count_tile(const Key (&keys)[Tuning::keys_per_thread],
                                           unsigned tile_n,
                                           const shared_splitters<Tuning, word_t<Key>>& split,
                                           bool any_equal, unsigned* histogram, Less less) {
#pragma unroll
  for (unsigned k = 0; k < Tuning::keys_per_thread; ++k) {
    if (tile_place<Tuning, false>(k) < tile_n)
      atomicAdd(&histogram[split.bucket_of(word_of<Key>(keys[k]), any_equal, less)], 1u);
  }
}

//! What a block that scatters tiles keeps in shared memory beside the staged tile: the
//! splitters; for each row and bucket (a row a warp where the scatter is Stable, else one for the
//! block), the row's keys of the bucket so far in the tile (zero between tiles), where Stable then
//! their first place in the staged tile; where not, each bucket's first place in a tile_start of
//! its own; where Stable, each bucket's running output index (else in warp 0's registers:
//! scatter_tile's `next`); each bucket's output index minus its first place in the staged tile;
//! the stable scan's warp sums.
template <class Tuning, class Key, bool Stable>
struct scatter_state {
  static constexpr unsigned warps = Tuning::block_threads / 32;
  static constexpr unsigned rows = Stable ? warps : 1;
  shared_splitters<Tuning, word_t<Key>> split;
  unsigned warp_counts[rows][Tuning::buckets];
  unsigned tile_start[Stable ? 1 : Tuning::buckets];
  index_t next[Stable ? Tuning::buckets : 1];
  index_t shift[Tuning::buckets];
  unsigned warp_sums[warps];
};

//! Writes a tile's tile_n keys (load_tile<Stable>'s) to out, each bucket's from the bucket's
//! running output index on (advanced past the tile): each key ranked within its bucket, a scan of
//! the counts giving each bucket's first place in `staged`, where the tile is laid out bucket by
//! bucket (a counting sort), then copied out with consecutive threads on consecutive places, so
//! that a bucket's run is written coalesced. Two rankings, two instantiations rather than a
//! runtime flag:
//! - unstable (the faster): each key's bucket and a shared atomic on one row of counts in one
//!   loop; warp 0 scans the counts, its lane l keeping the running output indices of buckets
//!   l * per_lane ... in `next` (registers), and zeroes them for the next tile; block-strided
//!   tiles (tile_place: the faster loads, log 86). This is log 84's code, which logs 85-86's
//!   shared-memory indices and loop of descents had slowed by ~40 us a scatter (log 88).
//! - Stable: each warp ranks its keys in order, key k after key k - 1, by ballots (the lanes of
//!   one bucket: one ballot a bit of it) in a row of its own, and the whole block scans the rows
//!   bucket by bucket and warp by warp (s.next the running indices), so that each bucket keeps its
//!   keys in input order; `next` is unused.
//! The whole block calls it.
template <bool Stable, class Tuning, class Key, class Less>
__device__ __forceinline__ void scatter_tile(const Key (&keys)[Tuning::keys_per_thread],
                                             unsigned tile_n, scatter_state<Tuning, Key, Stable>& s,
                                             bool any_equal, index_t (&next)[Tuning::buckets / 32],
                                             Key* staged, unsigned char* staged_bucket, Key* out,
                                             Less less) {
  using T = Tuning;
  constexpr unsigned warps = T::block_threads / 32, per_lane = T::buckets / 32;
  // The stable scan: a thread sums per_lane consecutive counts of one bucket, the bucket's warps
  // split among threads_per_bucket consecutive threads.
  constexpr unsigned threads_per_bucket = warps / per_lane;
  static_assert(warps % per_lane == 0 && threads_per_bucket <= 32,
                "a bucket's counts are whole threads' of one warp");
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned scan_bucket = threadIdx.x / threads_per_bucket;
  const unsigned first_warp = threadIdx.x % threads_per_bucket * per_lane;
  unsigned slot[T::keys_per_thread];  // the bucket | rank in its row's keys of it << 8
  const unsigned* first_place;        // of each bucket in the staged tile, for this thread's keys
  if constexpr (!Stable) {
    unsigned* const counts = s.warp_counts[0];
#pragma unroll
    for (unsigned k = 0; k < T::keys_per_thread; ++k) {
      if (tile_place<T, false>(k) < tile_n) {
        const unsigned b = s.split.bucket_of(word_of<Key>(keys[k]), any_equal, less);
        slot[k] = atomicAdd(&counts[b], 1u) << 8 | b;
      }
    }
    __syncthreads();
    if (warp == 0) {  // lane l: buckets l * per_lane ...
      unsigned mine[per_lane], sum = 0;
#pragma unroll
      for (unsigned i = 0; i < per_lane; ++i) {
        mine[i] = counts[lane * per_lane + i];
        sum += mine[i];
      }
      unsigned total;
      unsigned start = warp_exclusive_scan(sum, total);
#pragma unroll
      for (unsigned i = 0; i < per_lane; ++i) {
        const unsigned b = lane * per_lane + i;
        s.tile_start[b] = start;
        s.shift[b] = next[i] - start;  // modulo 2^64
        next[i] += mine[i];
        start += mine[i];
        counts[b] = 0;  // for the next tile: its atomics come after two more barriers
      }
    }
    first_place = s.tile_start;
  } else {
    unsigned* const counts = s.warp_counts[warp];
    // Every key's bucket first, so that the lookups' shared loads overlap.
#pragma unroll
    for (unsigned k = 0; k < T::keys_per_thread; ++k)
      slot[k] = tile_place<T, true>(k) < tile_n
                    ? s.split.bucket_of(word_of<Key>(keys[k]), any_equal, less)
                    : 0;
#pragma unroll
    for (unsigned k = 0; k < T::keys_per_thread; ++k) {
      const bool valid = tile_place<T, true>(k) < tile_n;
      const unsigned b = slot[k];
      unsigned peers = __ballot_sync(~0u, valid);  // then: the valid lanes of bucket b
#pragma unroll
      for (unsigned bit = 0; bit < T::buckets_log2; ++bit) {
        const unsigned ones = __ballot_sync(~0u, (b >> bit & 1u) != 0);
        peers &= (b >> bit & 1u) != 0 ? ones : ~ones;
      }
      const unsigned before = __popc(peers & ((1u << lane) - 1));
      const unsigned prior = counts[b];
      __syncwarp();
      if (valid && before == 0) counts[b] = prior + unsigned(__popc(peers));
      __syncwarp();  // this key's counts are written before the next key's are read
      slot[k] |= (prior + before) << 8;
    }
    __syncthreads();
    // Each row's counts become the places of its first keys of each bucket.
    unsigned mine[per_lane], sum = 0;
#pragma unroll
    for (unsigned i = 0; i < per_lane; ++i) {
      mine[i] = s.warp_counts[first_warp + i][scan_bucket];
      sum += mine[i];
    }
    unsigned warp_total;
    unsigned place = warp_exclusive_scan(sum, warp_total);
    if (lane == 0) s.warp_sums[warp] = warp_total;
    unsigned bucket_keys = sum;
#pragma unroll
    for (unsigned d = 1; d < threads_per_bucket; d *= 2)
      bucket_keys += __shfl_xor_sync(~0u, bucket_keys, d);
    __syncthreads();
    for (unsigned w = 0; w < warp; ++w)
      place += s.warp_sums[w];
    if (threadIdx.x % threads_per_bucket == 0) {
      s.shift[scan_bucket] = s.next[scan_bucket] - place;  // modulo 2^64
      s.next[scan_bucket] += bucket_keys;
    }
#pragma unroll
    for (unsigned i = 0; i < per_lane; ++i) {
      s.warp_counts[first_warp + i][scan_bucket] = place;
      place += mine[i];
    }
    first_place = counts;
  }
  __syncthreads();
#pragma unroll
  for (unsigned k = 0; k < T::keys_per_thread; ++k) {
    if (tile_place<T, Stable>(k) < tile_n) {
      const unsigned b = slot[k] & 0xffu, at = first_place[b] + (slot[k] >> 8);
      staged[at] = keys[k];
      staged_bucket[at] = static_cast<unsigned char>(b);
    }
  }
  __syncthreads();
  if constexpr (Stable) {  // the counts zero for the next tile, which ranks after the last barrier
#pragma unroll
    for (unsigned i = 0; i < per_lane; ++i)
      s.warp_counts[first_warp + i][scan_bucket] = 0;
  }
#pragma unroll
  for (unsigned k = 0; k < T::keys_per_thread; ++k) {
    const unsigned at = k * T::block_threads + threadIdx.x;
    if (at < tile_n) out[s.shift[staged_bucket[at]] + at] = staged[at];
  }
  __syncthreads();  // the staged tile is read before the next one overwrites it
}

//! Zeroes a scatter_state's counts (the whole block; the caller synchronises before the first
//! scatter_tile).
template <class Tuning, class Key, bool Stable>
__device__ void clear_counts(scatter_state<Tuning, Key, Stable>& s) {
  for (unsigned i = threadIdx.x; i < s.rows * Tuning::buckets; i += Tuning::block_threads)
    s.warp_counts[i / Tuning::buckets][i % Tuning::buckets] = 0;
}

//! Sets each bucket b's running output index to output(b) for the next tile's scatter_tile: in
//! s.next where Stable (the whole block), else in warp 0's `next` (lane l: buckets l * per_lane
//! ...). The caller synchronises before scatter_tile reads them.
template <class Tuning, class Key, bool Stable, class Output>
__device__ __forceinline__ void start_outputs(scatter_state<Tuning, Key, Stable>& s,
                                              index_t (&next)[Tuning::buckets / 32],
                                              Output output) {
  constexpr unsigned per_lane = Tuning::buckets / 32;
  if constexpr (Stable) {
    for (unsigned b = threadIdx.x; b < Tuning::buckets; b += Tuning::block_threads)
      s.next[b] = output(b);
  } else if (threadIdx.x < 32) {
#pragma unroll
    for (unsigned i = 0; i < per_lane; ++i)
      next[i] = output(threadIdx.x * per_lane + i);
  }
}

//! count_kernel's blocks an SM must hold: Tuning::count_min_blocks on sm_90 (its SMs hold 2048
//! threads), whatever the registers allow elsewhere (__launch_bounds__ warns where the blocks'
//! threads exceed an SM's).
template <class Tuning>
constexpr unsigned count_min_blocks() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
  return Tuning::count_min_blocks;
#else
  return 1;
#endif
}

//! Block g of the grid: counts[b * blocks + g] = the keys of its range in bucket b.
template <class Key, class Less, class IO>
__global__ void __launch_bounds__(tuning::sample_split<sizeof(Key)>::block_threads,
                                  count_min_blocks<tuning::sample_split<sizeof(Key)>>())
    count_kernel(split_input<Key, IO> in, block_ranges<tuning::sample_split<sizeof(Key)>> ranges,
                 const word_t<Key>* splitters, const unsigned* equal, index_t* counts,
                 index_t* lengths, Less less) {
  using T = tuning::sample_split<sizeof(Key)>;
  __shared__ shared_splitters<T, word_t<Key>> split;
  __shared__ unsigned histogram[T::buckets];
  wait_for_previous_pass();
  for (unsigned b = threadIdx.x; b < T::buckets; b += T::block_threads)
    histogram[b] = 0;
  const bool any_equal = split.load(splitters, equal, less);
  for_each_range_tile<false, false>(
      in, ranges, [&](const Key(&keys)[T::keys_per_thread], unsigned tile_n) {
        count_tile<T>(keys, tile_n, split, any_equal, histogram, less);
      });
  __syncthreads();
  for (unsigned b = threadIdx.x; b < T::buckets; b += T::block_threads) {
    counts[index_t{b} * ranges.blocks + blockIdx.x] = histogram[b];
    if (histogram[b] != 0) {
      static_assert(sizeof(index_t) == sizeof(unsigned long long), "64-bit atomics");
      atomicAdd(reinterpret_cast<unsigned long long*>(&lengths[b]),
                static_cast<unsigned long long>(histogram[b]));
    }
  }
}

//! Block b of `buckets` blocks: bucket b's entries of the table (its first key and tile, its
//! merges, the bucket of each of its tiles, and the most merges a bucket takes), and each (b,
//! block)'s first output index in place of its count. A block a bucket, so that the scan runs on as
//! many SMs: on one it took ~0.1 ms at 2^27 keys (1024 blocks of counts).
template <class Tuning>
__global__ void __launch_bounds__(Tuning::scan_threads)
    scan_kernel(index_t n, unsigned blocks, split_memory m) {
  static_assert(Tuning::buckets <= Tuning::scan_threads, "a thread a bucket's length");
  static_assert(Tuning::split_blocks <= Tuning::scan_threads, "a thread a block's count");
  constexpr unsigned warps = Tuning::scan_threads / 32;
  __shared__ index_t warp_sums[3][warps];
  const unsigned b = blockIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  wait_for_previous_pass();
  const auto tiles_of = [&](index_t length) {
    return (length + (index_t{1} << m.tile_log2) - 1) >> m.tile_log2;
  };
  // The keys and tiles of the buckets before b, and this block's count, in one block-wide sum.
  const index_t length = threadIdx.x < Tuning::buckets ? m.lengths[threadIdx.x] : 0;
  index_t part[3] = {threadIdx.x < b ? length : 0, threadIdx.x < b ? tiles_of(length) : 0,
                     threadIdx.x < blocks ? m.counts[index_t{b} * blocks + threadIdx.x] : 0};
  index_t before[3];
#pragma unroll
  for (unsigned k = 0; k < 3; ++k) {
    index_t total;
    before[k] = warp_exclusive_scan(part[k], total);
    if (lane == 0) warp_sums[k][warp] = total;
  }
  __syncthreads();
  index_t key_base = 0, tile_base = 0, warps_before = 0;
  for (unsigned w = 0; w < warps; ++w) {
    key_base += warp_sums[0][w];
    tile_base += warp_sums[1][w];
    if (w < warp) warps_before += warp_sums[2][w];
  }
  if (threadIdx.x < blocks)
    m.counts[index_t{b} * blocks + threadIdx.x] = key_base + warps_before + before[2];
  const index_t bucket_tiles = tiles_of(m.lengths[b]);
  if (threadIdx.x == 0) {
    m.key_begin[b] = key_base;
    m.tile_begin[b] = tile_base;
    const unsigned merges = m.equal[b] != 0 ? 0 : bucket_table::merge_stages(bucket_tiles);
    m.merges[b] = merges;
    atomicMax(m.most_merges, merges);
    if (b + 1 == gridDim.x) {
      m.key_begin[b + 1] = n;
      m.tile_begin[b + 1] = tile_base + bucket_tiles;
    }
  }
  for (index_t t = threadIdx.x; t < bucket_tiles; t += Tuning::scan_threads)
    m.tile_bucket[tile_base + t] = b;
  if (b + 1 == gridDim.x) {  // the tiles past the last bucket's
    for (index_t t = tile_base + bucket_tiles + threadIdx.x; t < m.tiles; t += Tuning::scan_threads)
      m.tile_bucket[t] = bucket_table::no_bucket;
  }
}

//! Block g of the grid writes its range's keys to out, each bucket's at the output indices the
//! scan gave (b, g), a tile at a time (scatter_tile).
template <bool Stable, class Key, class Less, class IO>
__global__ void __launch_bounds__(tuning::sample_split<sizeof(Key)>::block_threads,
                                  tuning::sample_split<sizeof(Key)>::scatter_min_blocks)
    scatter_kernel(split_input<Key, IO> in, Key* out,
                   block_ranges<tuning::sample_split<sizeof(Key)>> ranges,
                   const word_t<Key>* splitters, const unsigned* equal, const index_t* offsets,
                   Less less) {
  using T = tuning::sample_split<sizeof(Key)>;
  __shared__ scatter_state<T, Key, Stable> state;
  __shared__ Key staged[T::tile_keys];
  __shared__ unsigned char staged_bucket[T::tile_keys];
  wait_for_previous_pass();
  clear_counts(state);
  index_t next[T::buckets / 32]{};  // unstable: warp 0's running output indices (start_outputs)
  start_outputs(state, next,
                [&](unsigned b) { return offsets[index_t{b} * ranges.blocks + blockIdx.x]; });
  const bool any_equal = state.split.load(splitters, equal, less);  // synchronises
  for_each_range_tile<true, Stable>(in, ranges,
                                    [&](const Key(&keys)[T::keys_per_thread], unsigned tile_n) {
                                      scatter_tile<Stable, T>(keys, tile_n, state, any_equal, next,
                                                              staged, staged_bucket, out, less);
                                    });
}

//! Splits in[0, n) (n >= 1) into the buckets of tuning::sample_split<sizeof(Key)> under `less` on
//! the keys' words: writes the keys to out (another buffer, n keys) bucket by bucket, the same
//! bits as in, and the table to `memory` (split_memory::bytes(n, sizeof(Key), tile_log2) bytes,
//! 16-byte aligned; split_memory::carve(...).table() reads it). Four launches chained on
//! `stream`; nothing is allocated or waited for on the host. With a record_io (Key: its words),
//! `in` is not read: the records' words are made from the caller's arrays. Stable: each bucket
//! keeps its keys in their input order (stable_split).
template <bool Stable, class Key, class Less, class IO = keys_only>
void launch_split(const Key* keys, Key* out, index_t n, void* memory, unsigned tile_log2, Less less,
                  cudaStream_t stream, IO io = {}) {
  const split_input<Key, IO> in{keys, io};
  using T = tuning::sample_split<sizeof(Key)>;
  using W = word_t<Key>;
  const split_memory m = split_memory::carve(memory, n, sizeof(Key), tile_log2);
  const auto ranges = block_ranges<T>::of(n);
  W* const splitters = static_cast<W*>(m.splitters);
  constexpr std::size_t sample_bytes = std::size_t{T::samples} * sizeof(W);
  allow_dynamic_shared_memory<sample_kernel<Key, Less, IO>>(
      sample_bytes, "cudaFuncSetAttribute(sample_split sample_kernel shared memory)");
  launch_chained(sample_kernel<Key, Less, IO>, 1, T::sample_threads, sample_bytes, stream,
                 "sample_split sample_kernel launch", in, n, m, less);
  launch_chained(count_kernel<Key, Less, IO>, ranges.blocks, T::block_threads, 0, stream,
                 "sample_split count_kernel launch", in, ranges, static_cast<const W*>(splitters),
                 static_cast<const unsigned*>(m.equal), m.counts, m.lengths, less);
  launch_chained(scan_kernel<T>, T::buckets, T::scan_threads, 0, stream,
                 "sample_split scan_kernel launch", n, ranges.blocks, m);
  launch_chained(scatter_kernel<Stable, Key, Less, IO>, ranges.blocks, T::block_threads, 0, stream,
                 "sample_split scatter_kernel launch", in, out, ranges,
                 static_cast<const W*>(splitters), static_cast<const unsigned*>(m.equal),
                 static_cast<const index_t*>(m.counts), less);
}

}  // namespace bitonic::kernels::sample_split
