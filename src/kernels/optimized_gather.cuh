// optimized, global part: up to gather_steps_max consecutive steps of one stage whose distances
// exceed a tile (or a warp's keys, in plans for few tiles), in one pass over memory instead of
// one pass per step (V0/V2).
//
// Steps j = hi..lo of stage s only change the row bits lo..hi of an index (the flip, j = s-1,
// also mirrors the column bits below lo). A block takes the R = hi-lo+1 row bits' rows, spaced
// 2^lo apart, and in each row 128-byte segments: column segments and their mirrors (read back to
// front) for a flip pass, pairs of neighbouring segments otherwise, as many as fill a tile. A pass
// of more rows than leave room for two 128-byte segments a row (9 and 10 rows of 4-byte keys)
// moves 64- or 32-byte segments and holds 64 registers of keys a thread (tuning::gather): one
// pass instead of two where the keys stay in the L2 (the plan uses them only there).
// A thread holds, for one key position of a segment pair, the keys of the top rows of both
// segments in registers, so the flip and the following steps are register compare-exchanges;
// one exchange through shared memory then gives each thread the remaining rows. Every global load
// and store is a warp moving whole segments; shared memory is touched once per key (the
// first version ran every step through it and was 1.6-11x slower, docs/PERFORMANCE.md).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "kernels/launch.cuh"
#include "kernels/register_network.cuh"
#include "kernels/tuning.hpp"
#include "network/key_order.hpp"
#include "network/network.hpp"

namespace bitonic::kernels::optimized_gather {

using network::index_t;

//! Where a pass's group of keys lives. Local index of a key in its group, low bits first:
//! w (key in its segment) | x (low rows) | mu (which segment of the pair) | high rows | unit
//! (which segment pair). Rows is the pass's step count, Flip whether it starts with the flip, and a
//! block's tile 2^TileLog2 keys.
template <class Key, unsigned Rows, bool Flip, unsigned TileLog2>
struct gather_shape {
  using T = tuning::optimized<sizeof(Key)>;
  using G = typename T::template gather<Rows, TileLog2>;
  static constexpr bool flip = Flip;
  static constexpr unsigned log_k = G::keys_log2, K = 1u << log_k;
  static constexpr unsigned log_w = G::segment_log2, W = 1u << log_w;
  using mask = register_mask<K>;
  static constexpr unsigned high_rows = Rows < log_k - 1 ? Rows : log_k - 1;
  static constexpr unsigned low_rows = Rows - high_rows;
  static constexpr unsigned units_log2 = TileLog2 - log_w - 1 - Rows;
  //! First round: the registers hold mu, the high rows and (with few rows) low unit bits.
  static constexpr unsigned high_base = log_w + low_rows;
  static_assert(Rows <= T::gather_steps_max, "rows outside the kernel's shape");
  static_assert(low_rows + 1 <= log_k, "second round: low rows and mu fit the registers");

  unsigned low_step;     //!< lo: rows are 2^lo keys apart
  unsigned groups_log2;  //!< groups per row block of 2^(lo + Rows) keys
  index_t group;         //!< which group this block runs
  unsigned t;            //!< thread index (opaque: see `opaque`)

  __device__ index_t row_block() const { return (group >> groups_log2) << (low_step + Rows); }
  __device__ index_t first_unit() const {
    return (group & ((index_t{1} << groups_log2) - 1)) << units_log2;
  }
  //! Index of the key of unit `unit`, row 0, segment offset w in the first (mu = 0) or the
  //! second segment of the pair.
  __device__ index_t segment_key(index_t unit, bool mu, unsigned w) const {
    if (!Flip) return row_block() + ((2 * unit + mu) << log_w) + w;
    return row_block() + (mu ? (index_t{1} << low_step) - ((unit + 1) << log_w) : unit << log_w) +
           w;
  }

  // First round, register m = mu | high row << 1 | unit bits above: key = base[mu] + high row
  // * 2^(lo + x) + unit bits * unit_step[mu]. A mirror key (mu = 1 of a flip) complements w and
  // x: it is the flip partner of the key with the complementary high rows in the same thread.
  struct first_round {
    index_t base[2];
    index_t unit_step[2];
    unsigned high_row_shift;
  };
  __device__ first_round first() const {
    const unsigned w = t & (W - 1), x = (t >> log_w) & ((1u << low_rows) - 1);
    const index_t unit = first_unit() + (index_t{t >> high_base} << (log_k - 1 - high_rows));
    const unsigned mirror_x = Flip ? (1u << low_rows) - 1 - x : x;
    const unsigned mirror_w = Flip ? W - 1 - w : w;
    first_round f;
    f.base[0] = segment_key(unit, false, w) + (index_t{x} << low_step);
    f.base[1] = segment_key(unit, true, mirror_w) + (index_t{mirror_x} << low_step);
    f.unit_step[0] = index_t{Flip ? 1u : 2u} << log_w;
    f.unit_step[1] = Flip ? ~index_t{0} * W : f.unit_step[0];  // the mirror segments go down
    f.high_row_shift = low_step + low_rows;
    return f;
  }
  __device__ static index_t first_index(const first_round& f, unsigned m) {
    const unsigned high = (m >> 1) & ((1u << high_rows) - 1), unit = m >> (1 + high_rows);
    return f.base[m & 1] + (index_t{high} << f.high_row_shift) + unit * f.unit_step[m & 1];
  }
  __device__ unsigned first_local(unsigned m) const {
    const unsigned flip_below = Flip && (m & 1) ? (1u << high_base) - 1 : 0;
    return swizzled((spread_index<log_k, high_base>(t, 0) ^ flip_below) + (m << high_base));
  }

  // Second round, register m = x | mu << low_rows | the lowest high rows above; the thread's
  // bits above the registers are the other high rows, then the unit.
  struct second_round {
    index_t base[2];
    unsigned high_row_shift;
  };
  __device__ second_round second() const {
    constexpr unsigned thread_high_rows = high_rows - (log_k - 1 - low_rows);
    const unsigned w = t & (W - 1), above = t >> log_w;
    const unsigned high = above & ((1u << thread_high_rows) - 1);
    const index_t unit = first_unit() + (above >> thread_high_rows);
    const index_t row = index_t{high} << (log_k - 1);  // row bits above the registers' rows
    second_round s;
    s.base[0] = segment_key(unit, false, w) + (row << low_step);
    s.base[1] = segment_key(unit, true, w) + (row << low_step);
    s.high_row_shift = low_step + low_rows;
    return s;
  }
  __device__ index_t second_index(const second_round& s, unsigned m) const {
    const unsigned x = m & ((1u << low_rows) - 1), high = m >> (low_rows + 1);
    return s.base[(m >> low_rows) & 1] + (index_t{x} << low_step) +
           (index_t{high} << s.high_row_shift);
  }
  __device__ unsigned second_local(unsigned m) const {
    return swizzled(spread_index<log_k, log_w>(t, 0) + (m << log_w));
  }

  // Shared-memory address of local index i. A warp's second-round loads take segments of W keys
  // 2^(log_w + log_k) apart; with segments shorter than a warp these would share banks, so the
  // bits above them (at most five) are folded into the bits that choose a segment's bank group.
  // A first-round warp stores 32 consecutive local indices, whose folded bits are equal.
  __device__ static unsigned swizzled(unsigned i) {
    constexpr unsigned fold = (32u >> log_w) - 1;  // none for segments of 32 keys
    return i ^ (((i >> (log_w + log_k)) & fold) << log_w);
  }
};

//! Calls fn(m, index of register m) for every register, a quarter of them at a time: each
//! quarter's addresses are computed (from an opaque copy of the thread index) only after the
//! previous quarter's memory accesses, so that K of them never live at once beside the keys.
template <class Shape, class Round, class IndexOf, class Fn>
__device__ __forceinline__ void by_quarters(Shape& shape, Round round, IndexOf index_of, Fn fn) {
#pragma unroll
  for (unsigned q = 0; q < 4; ++q) {
    asm volatile("" : "+r"(shape.t) : : "memory");
    const auto at = (shape.*round)();
#pragma unroll
    for (unsigned m = q * Shape::K / 4; m < (q + 1) * Shape::K / 4; ++m)
      fn(m, index_of(shape, at, m));
  }
}

//! Runs the pass's Rows steps on one group; registers hold ordered words.
template <bool Full, class Key, class S, class Less>
__device__ void run_group(Key* keys, typename ordered_word<Key>::type* smem, index_t n, S shape,
                          Less less) {
  using word = ordered_word<Key>;
  const auto first_index = [](const S&, const auto& at, unsigned m) {
    return S::first_index(at, m);
  };
  const auto second_index = [](const S& sh, const auto& at, unsigned m) {
    return sh.second_index(at, m);
  };
  typename word::type r[S::K];
  typename S::mask valid = Full ? ~typename S::mask{0} : 0;  // registers holding a key (< n)
  if constexpr (Full) {  // all K loads at once, in flight together
    const auto f = shape.first();
#pragma unroll
    for (unsigned m = 0; m < S::K; ++m)
      r[m] = word::encode(keys[S::first_index(f, m)]);
  } else {  // the same, each load predicated: in rows with missing keys most groups are partial
    const auto f = shape.first();
#pragma unroll
    for (unsigned m = 0; m < S::K; ++m) {
      const index_t i = S::first_index(f, m);
      if (i < n) {
        r[m] = word::encode(keys[i]);
        valid |= typename S::mask{1} << m;
      }
    }
  }
  // Row bit b of the pass is register bit b - x + 1 in the first round (bit 0 is mu).
  if constexpr (S::flip) {
    register_step<S::high_rows, true>(r, valid, less);
    register_steps_down<int(S::high_rows) - 1, 1>(r, valid, less);
  } else {
    register_steps_down<int(S::high_rows), 1>(r, valid, less);
  }
  if constexpr (S::low_rows == 0) {
    by_quarters(shape, &S::first, first_index, [&](unsigned m, index_t i) {
      if (Full || i < n) keys[i] = word::decode(r[m]);
    });
  } else {
#pragma unroll
    for (unsigned m = 0; m < S::K; ++m)
      smem[shape.first_local(m)] = r[m];
    __syncthreads();
#pragma unroll
    for (unsigned m = 0; m < S::K; ++m)
      r[m] = smem[shape.second_local(m)];
    if constexpr (!Full) {
      valid = 0;
      by_quarters(shape, &S::second, second_index,
                  [&](unsigned m, index_t i) { valid |= typename S::mask{i < n} << m; });
    }
    register_steps_down<int(S::low_rows) - 1, 0>(r, valid, less);  // row bit b: register bit b
    by_quarters(shape, &S::second, second_index, [&](unsigned m, index_t i) {
      if (Full || i < n) keys[i] = word::decode(r[m]);
    });
    __syncthreads();  // the next group reuses the shared memory
  }
}

template <class Key, unsigned Rows, bool Flip, unsigned TileLog2, class Less>
__global__ void __launch_bounds__(
    tuning::optimized<sizeof(Key)>::template gather<Rows, TileLog2>::threads,
    tuning::optimized<sizeof(Key)>::template gather<Rows, TileLog2>::min_blocks)
    gather_kernel(Key* keys, key_rows rows, unsigned low_step, unsigned groups_log2, index_t groups,
                  Less less) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  auto* smem = reinterpret_cast<typename ordered_word<Key>::type*>(smem_bytes);
  wait_for_previous_pass();
  for (index_t g = blockIdx.x; g < groups; g += gridDim.x) {
    // opaque: nothing of a group's address arithmetic is hoisted out of the loop and kept.
    const gather_shape<Key, Rows, Flip, TileLog2> shape{low_step, groups_log2, g,
                                                        opaque(threadIdx.x)};
    const index_t row_block = (g >> groups_log2) << (low_step + Rows);
    // The group runs on its row as on an array of row.end keys at keys + row.shift.
    const key_rows::span row = rows.row_of(row_block);
    if (row_block >= row.end) continue;
    Key* const row_keys =  // by integers: the shifted pointer may lie before the keys
        reinterpret_cast<Key*>(reinterpret_cast<std::uintptr_t>(keys) + row.shift * sizeof(Key));
    if (row_block + (index_t{1} << (low_step + Rows)) <= row.end) {
      run_group<true>(row_keys, smem, row.end, shape, less);
    } else {
      run_group<false>(row_keys, smem, row.end, shape, less);
    }
  }
}

template <class Key, unsigned Rows, bool Flip, unsigned TileLog2, class Less>
void launch_shape(Key* keys, index_t n, key_rows rows, unsigned low_step, Less less,
                  cudaStream_t stream) {
  using G = typename tuning::optimized<sizeof(Key)>::template gather<Rows, TileLog2>;
  const unsigned row_block_log2 = low_step + Rows;
  const unsigned groups_log2 = row_block_log2 - TileLog2;
  const index_t row_blocks = (n + (index_t{1} << row_block_log2) - 1) >> row_block_log2;
  const index_t groups = row_blocks << groups_log2;
  constexpr auto kernel = gather_kernel<Key, Rows, Flip, TileLog2, Less>;
  allow_dynamic_shared_memory<kernel>(
      G::smem_bytes, "cudaFuncSetAttribute(optimized gather_kernel shared memory)");
  launch_chained(kernel, grid_blocks(groups, 1), G::threads, G::smem_bytes, stream,
                 "optimized gather_kernel launch", keys, rows, low_step, groups_log2, groups, less);
}

//! Whether the kernel runs steps first..last on tiles of 2^tile_log2 keys (0: a whole tile's, else
//! the few-tiles plans' few_tiles_gather_log2): one stage's, at most gather_rows_max of the tile,
//! distances from a tile up, or (as plans for few tiles have them) from a warp's keys up, as long
//! as a row block (rows 2^last apart) holds a tile.
template <class Key>
bool runs(network::step first, network::step last, unsigned tile_log2 = 0) {
  using T = tuning::optimized<sizeof(Key)>;
  const unsigned rows = first.distance_log2 - last.distance_log2 + 1;
  const unsigned tile = tile_log2 == 0 ? T::tile_log2 : tile_log2;
  return first.stage == last.stage && first.distance_log2 >= last.distance_log2 &&
         rows <= T::gather_rows_max(tile) && last.distance_log2 >= T::warp_stages &&
         last.distance_log2 + rows >= tile &&
         (tile == T::tile_log2 || tile == T::few_tiles_gather_log2);
}

//! Runs steps first..last (see `runs`) in one pass on the n positions of `rows` (launch.cuh).
template <class Key, class Less>
void launch(Key* keys, index_t n, key_rows rows, network::step first, network::step last,
            unsigned tile_log2, Less less, cudaStream_t stream) {
  using T = tuning::optimized<sizeof(Key)>;
  const unsigned steps = first.distance_log2 - last.distance_log2 + 1;
  if (!runs<Key>(first, last, tile_log2)) {
    throw error("bitonic: internal error: gather pass outside the kernel's shape");
  }
  const auto on_tiles = [&]<unsigned Tile>(std::integral_constant<unsigned, Tile>) {
    const auto pick = [&]<unsigned... R>(std::integer_sequence<unsigned, R...>) {
      ((steps == R + 1 ? (first.is_flip() ? launch_shape<Key, R + 1, true, Tile>(
                                                keys, n, rows, last.distance_log2, less, stream)
                                          : launch_shape<Key, R + 1, false, Tile>(
                                                keys, n, rows, last.distance_log2, less, stream))
                       : void()),
       ...);
    };
    pick(std::make_integer_sequence<unsigned, T::gather_rows_max(Tile)>{});
  };
  if (tile_log2 == 0 || tile_log2 == T::tile_log2) {
    on_tiles(std::integral_constant<unsigned, T::tile_log2>{});
  } else if constexpr (T::few_tiles_gather_log2 != T::tile_log2) {
    on_tiles(std::integral_constant<unsigned, T::few_tiles_gather_log2>{});
  }
}

}  // namespace bitonic::kernels::optimized_gather
