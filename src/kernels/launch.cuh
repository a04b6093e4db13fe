// Grid sizing and launching shared by the kernels: every kernel loops grid-stride (64-bit
// indices), so the grid only has to be large enough to fill the device, never as large as the work.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "bitonic/cuda_helpers.hpp"
#include "kernels/buckets.hpp"
#include "network/network.hpp"
#include "runtime/device.hpp"
#include "runtime/kernel_loading.hpp"

namespace bitonic::kernels {

//! Blocks for `items` work items of `per_block` each, capped; kernels loop over the remainder.
inline unsigned grid_blocks(network::index_t items, network::index_t per_block) {
  constexpr network::index_t max_blocks = network::index_t{1} << 20;
  const network::index_t blocks = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks < max_blocks ? blocks : max_blocks));
}

//! Where a pass's positions are in memory. A single array is one row: position i is key i, and
//! the positions from n up are the network's missing keys. A batched plan whose rows are longer
//! than a tile but not a power of two long (plan::plan::row_log2) runs its passes on rows of
//! 2^log2 positions, of which the first `length` are the row's keys, stored back to back (row
//! r's from r * length): the rows' other positions are missing keys, so no row is padded in
//! memory. A pass never reaches across rows, so each tile or group of a kernel lies in one row.
//! The rows may also be a split's buckets (`buckets.count` != 0, a table in device memory): each
//! bucket its own row from a tile of its own, and the pass the `bucket_pass`-th of each bucket
//! (0 the first pass, s its s-th merge past the tile), which a bucket sorted in fewer merges
//! skips; see bucket_step.
struct key_rows {
  network::index_t length = 0;  //!< keys a row holds
  unsigned log2 = 63;           //!< positions a row spans (63: the whole array is one row)
  bucket_table buckets{};       //!< count 0: not buckets
  unsigned bucket_pass = 0;
  //! 1 where the pass's destination is the other buffer than the one each bucket's passes end
  //! in: a refined split's first pass (plan::plan::refined), which reads the keys.
  unsigned bucket_parity = 0;

  //! Whether the pass is a refined split's first pass (bucket_parity 1): its buckets are
  //! sub-buckets of about a tile's keys, whose words span a narrow range (compact_record_tile.cuh).
  __host__ __device__ bool refined_first_pass() const { return bucket_parity != 0; }

  //! For the row that holds `position`: the end of its keys' positions, and where memory holds
  //! position p of the row (at p + shift, modulo 2^64: the shift is negative past row 0); its keys
  //! and, for buckets, the merges past the tile that sort it.
  struct span {
    network::index_t end, shift, length;
    unsigned merges = 0;
    bool equal = false;  //!< an equality bucket (bucket_table::equal): sorted as it lies
  };
  __host__ __device__ span row_of(network::index_t position) const {
    if (buckets.count != 0) return bucket_of(position);
    const network::index_t row = position >> log2;
    return {(row << log2) + length, row * length - (row << log2), length};
  }

  //! What a bucket's pass does: whether it runs (a bucket sorted in fewer merges than this pass's
  //! number is done), whether it writes to the pass's nominal destination (the caller's keys) or
  //! to the other buffer, and whether it is the bucket's last (which writes keys, not words).
  //! Each bucket's passes alternate between the buffers so that its last lands in the keys. Rows
  //! that are not buckets: every pass runs and writes to its destination.
  struct bucket_step {
    bool runs = true, to_destination = true, last = false;
  };
  //! Whether the pass has nothing to do on any row: a merge of buckets past the most any takes.
  __device__ bool none_runs() const {
    return buckets.count != 0 && bucket_pass > *buckets.most_merges;
  }
  __host__ __device__ bucket_step step_of(const span& row) const {
    if (buckets.count == 0) return {};
    return {bucket_pass <= row.merges, (row.merges - bucket_pass + bucket_parity) % 2 == 0,
            bucket_pass == row.merges};
  }

 private:
  __host__ __device__ span bucket_of(network::index_t position) const {
    const network::index_t tile = position >> buckets.tile_log2;
    const unsigned b = buckets.tile_bucket[tile];
    if (b == bucket_table::no_bucket) return {0, 0, 0};
    const network::index_t first_key = buckets.key_begin[b];
    const network::index_t first_tile = buckets.tile_begin[b];
    const network::index_t begin = first_tile << buckets.tile_log2;
    const network::index_t length = buckets.key_begin[b + 1] - first_key;
    return {begin + length, first_key - begin, length, buckets.merges[b],
            buckets.equal != nullptr && buckets.equal[b] != 0};
  }
};

//! __shfl_xor_sync of any trivially copyable value whose size is a multiple of 4 bytes (CUDA's
//! own for its arithmetic types, which it shuffles the same way).
template <class T>
__device__ T shuffle_xor(T v, unsigned lane_mask) {
  if constexpr (std::is_arithmetic_v<T>) {
    return __shfl_xor_sync(~0u, v, lane_mask);
  } else {
    static_assert(sizeof(T) % 4 == 0, "shuffled as 4-byte words");
    unsigned words[sizeof(T) / 4];
    std::memcpy(words, &v, sizeof v);
#pragma unroll
    for (unsigned i = 0; i < sizeof(T) / 4; ++i)
      words[i] = __shfl_xor_sync(~0u, words[i], lane_mask);
    std::memcpy(&v, words, sizeof v);
    return v;
  }
}

//! for_each_tile, with the tile's row (key_rows::span) as run's fourth argument.
template <unsigned TileKeys, class Run>
__device__ void for_each_row_tile(network::index_t n, key_rows rows, Run run) {
  const network::index_t tiles = (n + TileKeys - 1) / TileKeys;
  for (network::index_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const network::index_t position = t * TileKeys;
    const key_rows::span row = rows.row_of(position);
    if (position >= row.end) continue;
    if (position + TileKeys <= row.end) {
      run(position + row.shift, TileKeys, std::true_type{}, row);
    } else {
      run(position + row.shift, unsigned(row.end - position), std::false_type{}, row);
    }
  }
}

//! In a kernel: calls run(tile_base, tile_n, full) for every tile of TileKeys consecutive
//! positions of `rows` in [0, n) that this block owns (grid-stride) and that holds a key:
//! tile_base is where the tile's keys start in memory, tile_n how many keys it holds, `full` is
//! std::true_type for whole tiles and std::false_type for the partial one that ends a row (or the
//! array), so each gets its own instantiation. Tiles of missing keys are skipped.
template <unsigned TileKeys, class Run>
__device__ void for_each_tile(network::index_t n, key_rows rows, Run run) {
  for_each_row_tile<TileKeys>(
      n, rows, [&](network::index_t base, unsigned tile_n, auto full, const key_rows::span&) {
        run(base, tile_n, full);
      });
}

//! for_each_tile of keys[0, n): one row.
template <unsigned TileKeys, class Run>
__device__ void for_each_tile(network::index_t n, Run run) {
  for_each_tile<TileKeys>(n, key_rows{n}, run);
}

//! Calls set() once per device for each type Set (a lambda: one per call site and per
//! instantiation of the template around it): a kernel's attributes belong to each device's
//! context, so they are set once per device, not once per process.
template <class Set>
void once_per_device(Set set) {
  static std::atomic<std::uint64_t> devices_done{0};
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  const std::uint64_t bit = device < 64 ? std::uint64_t{1} << device : 0;
  if ((devices_done.load(std::memory_order_relaxed) & bit) != 0) return;
  set();
  devices_done.fetch_or(bit, std::memory_order_relaxed);
}

//! While one exists on a thread, the launch helpers below load their kernel (and set its
//! attributes) but launch nothing: a call walks its plan once in this mode so that every kernel it
//! needs is loaded before the first one touches the keys (host/kernel_loading.hpp says why).
class load_only_scope {
 public:
  load_only_scope() : outer_(active_) { active_ = true; }
  ~load_only_scope() { active_ = outer_; }
  load_only_scope(const load_only_scope&) = delete;
  load_only_scope& operator=(const load_only_scope&) = delete;
  static bool active() { return active_; }

 private:
  static inline thread_local bool active_ = false;
  bool outer_;
};

//! Lets `Kernel` use `bytes` of dynamic shared memory (beyond the default 48 KiB); `bytes` must be
//! the same for every call on one device.
template <auto Kernel>
void allow_dynamic_shared_memory(std::size_t bytes, const char* what) {
  once_per_device([&] {
    runtime::ensure_loaded(reinterpret_cast<const void*>(Kernel), what);
    check_cuda(
        cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
        what);
  });
}

// Chained launches (Hopper's programmatic dependent launch) for the optimized path's passes: the
// next pass's blocks are scheduled while the previous pass finishes and wait on the device, so
// the launch latency between two passes (a few microseconds) is hidden (docs/PERFORMANCE.md,
// "Figures behind the code").

//! In a kernel launched by launch_chained, before its first access to the keys: waits until the
//! kernel before it in the stream has finished and its writes are visible, then lets the kernel
//! after it be scheduled onto SMs as they free up (to wait here in turn). A no-op for a kernel
//! launched without the attribute or built for an older architecture.
__device__ __forceinline__ void wait_for_previous_pass() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

//! Asks the L2 for the 128-byte lines of global memory that hold bytes [begin, begin + bytes), a
//! line a thread of the block, so that loads of them a tile later find them there: a pass that
//! reads a tile, then works on it between barriers, otherwise waits a DRAM latency a tile.
__device__ __forceinline__ void prefetch_l2(const void* begin, std::size_t bytes) {
  const std::size_t at = __cvta_generic_to_global(begin);
  for (std::size_t line = (at & ~std::size_t{127}) + std::size_t{threadIdx.x} * 128;
       line < at + bytes; line += std::size_t{blockDim.x} * 128)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(line));
}

//! Launches kernel<<<blocks, threads, smem_bytes, stream>>>(args...) with `count` launch
//! attributes (only loads the kernel under a load_only_scope). `what` names the launch in errors.
template <class... Params, class... Args>
void launch_with_attributes(void (*kernel)(Params...), unsigned blocks, unsigned threads,
                            std::size_t smem_bytes, cudaStream_t stream, const char* what,
                            cudaLaunchAttribute* attributes, unsigned count, Args... args) {
  if (load_only_scope::active()) {
    runtime::ensure_loaded(reinterpret_cast<const void*>(kernel), what);
    return;
  }
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = smem_bytes;
  config.stream = stream;
  config.attrs = attributes;
  config.numAttrs = count;
  check_cuda(cudaLaunchKernelEx(&config, kernel, args...), what);
}

//! Launches kernel<<<blocks, threads, smem_bytes, stream>>>(args...), chained to the kernel before
//! it in the stream where the device supports it (compute capability 9.0 and up); the kernel must
//! call wait_for_previous_pass before it touches memory the previous kernel writes. With
//! cluster_blocks (0: none), the blocks form clusters of that many (devices with clusters only).
//! `what` names the launch in errors.
template <class... Params, class... Args>
void launch_chained_clusters(void (*kernel)(Params...), unsigned blocks, unsigned cluster_blocks,
                             unsigned threads, std::size_t smem_bytes, cudaStream_t stream,
                             const char* what, Args... args) {
  cudaLaunchAttribute attributes[2]{};
  unsigned count = 0;
  if (runtime::chains_launches()) {
    attributes[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attributes[count++].val.programmaticStreamSerializationAllowed = 1;
  }
  if (cluster_blocks != 0) {
    attributes[count].id = cudaLaunchAttributeClusterDimension;
    attributes[count++].val.clusterDim = {cluster_blocks, 1, 1};
  }
  launch_with_attributes(kernel, blocks, threads, smem_bytes, stream, what, attributes, count,
                         args...);
}

//! Launches kernel<<<blocks, threads, smem_bytes, stream>>>(args...) cooperatively: all its
//! blocks are resident at once (the launch fails if they cannot be), so they may wait for each
//! other (cooperative_groups::this_grid().sync()). Not chained: it starts after the kernel before
//! it has finished.
template <class... Params, class... Args>
void launch_cooperative(void (*kernel)(Params...), unsigned blocks, unsigned threads,
                        std::size_t smem_bytes, cudaStream_t stream, const char* what,
                        Args... args) {
  cudaLaunchAttribute cooperative{};
  cooperative.id = cudaLaunchAttributeCooperative;
  cooperative.val.cooperative = 1;
  launch_with_attributes(kernel, blocks, threads, smem_bytes, stream, what, &cooperative, 1,
                         args...);
}

//! Launches kernel<<<blocks, threads, 0, stream>>>(args...), not chained.
template <class... Params, class... Args>
void launch_plain(void (*kernel)(Params...), unsigned blocks, unsigned threads, cudaStream_t stream,
                  const char* what, Args... args) {
  launch_with_attributes(kernel, blocks, threads, 0, stream, what, nullptr, 0, args...);
}

//! launch_chained_clusters without clusters.
template <class... Params, class... Args>
void launch_chained(void (*kernel)(Params...), unsigned blocks, unsigned threads,
                    std::size_t smem_bytes, cudaStream_t stream, const char* what, Args... args) {
  launch_chained_clusters(kernel, blocks, 0, threads, smem_bytes, stream, what, args...);
}

}  // namespace bitonic::kernels
