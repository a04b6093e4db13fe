// bitonic — GPU sorting with bitonic sorting networks.
//
// Plain C++ header: usable from .cpp files compiled by any C++20 compiler. The sort entry points
// are precompiled for int32_t, uint32_t, int64_t, uint64_t, float and double keys, and the
// keys-only ones (sort in place and out of place, workspace_bytes, sort_on_cpu, sort_host) also
// for int8_t, uint8_t, int16_t, uint16_t, __half and __nv_bfloat16 (include <cuda_fp16.h> /
// <cuda_bf16.h> for those two).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "bitonic/order.hpp"

namespace bitonic {

//! Sort order. Floating-point keys follow a total order in which every NaN is greater than every
//! number (NaNs come last when ascending, first when descending) and -0.0 equals +0.0.
enum class order { ascending, descending };

//! Which implementation runs the network. All of them produce the same result.
enum class algorithm {
  automatic,     //!< the fastest variant available for the input (the default)
  global_step,   //!< V0: one kernel launch per network step, one comparator per thread
  fused_steps,   //!< V1: steps within a thread block fused in one launch, in global memory
  shared_tiles,  //!< V2: steps within a tile fused in shared memory; long distances in global
                 //!< memory
  block_merge,   //!< tiles sorted in shared memory, then sorted runs merged pairwise by binary
                 //!< search (needs a scratch buffer of n keys)
  optimized,     //!< registers, warp shuffles, large shared-memory tiles and several global
                 //!< steps per pass over memory; in place up to one L2 cache block of keys, past
                 //!< it each stage past a tile merged in one pass into a scratch buffer of n keys
                 //!< (in place instead where the device lacks that memory)
};

//! Per-call options. The defaults sort ascending on the legacy default stream, with scratch
//! memory (where the plan needs any) from the library's own memory pool.
struct options {
  order direction = order::ascending;
  algorithm algo = algorithm::automatic;
  cudaStream_t stream = nullptr;  //!< every device operation of the call is ordered on this stream
  //! sort_host only: the most device memory the call may use, in bytes; 0 means what the device
  //! has free. Data that does not fit is sorted in runs that are then merged.
  std::size_t max_device_bytes = 0;
  //! Device memory the call may use as scratch instead of allocating any (CUB's temporary
  //! storage): `workspace_bytes` bytes at `workspace`, any alignment, on the current device, not
  //! overlapping the keys, unused by other work until the sort has finished on `stream`. Ask
  //! bitonic::workspace_bytes<Key>() how much a call needs. Null: the library allocates.
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  //! Equal keys keep their input order. Keys-only sorts of integers are the same either way; for
  //! float and double keys, whose equal keys can differ in bits (-0.0 and +0.0, NaN payloads), a
  //! stable sort runs as an argsort and a gather (sort_pairs' cost, about twice a key sort's).
  //! sort_pairs, argsort and sort_host follow it too (argsort_batched, sort_segments' argsort and
  //! topk are stable whatever it says).
  bool stable = false;
};

//! Every failure of the library: bad arguments, no device, CUDA errors. The message names the
//! problem; the caller's data is untouched when the error is thrown before any kernel ran
//! (argument checks, allocation failures).
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

//! True when at least one CUDA device is usable by this process. Never throws.
bool gpu_available() noexcept;

//! Sorts `n` keys in place in device (or managed) memory of the current device.
//!
//! Asynchronous: the work is enqueued on `opt.stream` and the call returns without waiting for it
//! (no device-wide synchronisation). Synchronise the stream before reading the keys on the host.
//! Memory: block_merge, and optimized once the keys exceed a block of the L2 cache (3/8 of the L2:
//! 2^22 four-byte keys with a 50 MB L2) or, for 8-byte keys, from 2^19 keys, need scratch memory
//! (workspace_bytes<Key>(n, opt) bytes: n keys, for optimized plus 8 bytes a tile, from 2^24
//! four-byte or 2^23 eight-byte keys about 1 MiB for the split into buckets, and from 2^26 and
//! 2^24 about 1/64 of the keys' bytes more to cut the buckets again). With opt.workspace
//! the call uses that and allocates nothing; too small a workspace throws bitonic::error naming the
//! bytes needed. Without one it allocates stream-ordered on `opt.stream` from the library's own
//! memory pool on the device (never from the device's default pool, which belongs to the
//! application) and frees it there; the pool keeps what is freed into it, so repeated calls do not
//! map memory again: after a call, as much as the largest scratch of the calls so far (overlapping
//! calls: their sum) stays reserved until release_cached_memory(). While `opt.stream` is being
//! captured into a CUDA graph the scratch is a graph allocation instead (cudaMallocAsync). Where
//! the device lacks the memory, optimized sorts in place instead (about 1.5x slower: README,
//! Results) and block_merge throws. Every other algorithm works in place with no extra memory.
//! Streams: below the cache block, once the keys span more tiles than half the SMs, optimized
//! merges its middle stages on every tile at once (4-byte keys; 8-byte keys only in place): one
//! cooperative launch (all its thread blocks resident together), which fails with bitonic::error
//! where the device cannot hold them all (a GPU shared through MPS with a cap on its SMs, for one).
//! Its in-place plan past the cache block runs half of its cache-blocked passes on a side stream of
//! the calling host thread, forked from and joined back to `opt.stream` by events: work enqueued on
//! `opt.stream` after the call still runs after all of the sort, and the call can be captured into
//! a CUDA graph.
//!
//! Preconditions: `d_keys` points to at least `n` keys in device or managed memory of the current
//! device (may be null only when n == 0). Not stable (equal keys may be reordered) unless
//! opt.stable (options::stable says what it costs).
//! Complexity: O(n log^2 n) comparisons, ceil(log2 n)(ceil(log2 n)+1)/2 network steps grouped
//! into passes over memory (optimized: 14 passes for 2^27 four-byte keys, a first pass over tiles
//! of 2^14 and one merge pass a stage after it; block_merge: a tile sort plus log2(n / tile) merge
//! passes of O(log n) comparisons per key).
//! Throws bitonic::error (data untouched) on a null or host pointer, a range that exceeds its
//! allocation, a workspace that is too small, not device memory or overlaps the keys, no CUDA
//! device, a failed block_merge scratch allocation, or a kernel that CUDA cannot load (it loads
//! them lazily, on first use: all the kernels a call needs are loaded before the first one runs);
//! on a failing CUDA call, with the call's name and CUDA's error string.
template <class Key>
void sort(Key* d_keys, std::size_t n, const options& opt = {});

//! Sorts `n` keys from d_in into d_out (CUB's SortKeys with d_keys_in and d_keys_out): d_out ends
//! as `sort` would leave the keys, and d_in is not changed. d_out == d_in is `sort` in place.
//! Same order, stability, options, workspace (workspace_bytes<Key>(n, opt): it must not overlap
//! either array), streams and complexity as `sort`; no extra memory and no extra pass where the
//! plan starts with a pass over tiles, which then reads d_in (optimized at every size but those
//! of its one-cluster launch, 2^14..2^16 four-byte keys on devices with clusters, and its in-place
//! plan past the L2 block; 1- and 2-byte keys too, whose words are widened from d_in); otherwise,
//! and for stable float sorts, d_in is first copied into d_out (one pass over the keys).
//! Preconditions: as for `sort`, for both arrays, which either are the same or do not overlap.
//! Throws bitonic::error (both arrays untouched) as `sort` does, and when the arrays overlap.
template <class Key>
void sort(const Key* d_in, Key* d_out, std::size_t n, const options& opt = {});

//! Bytes of workspace that `sort<Key>(d_keys, n, opt)` needs on the current device so that it
//! allocates nothing (opt.workspace and opt.workspace_bytes are ignored here); 0 when the plan
//! works in place (optimized up to one L2 block of keys, and every other variant but
//! block_merge). Depends on n, opt.algo and the device's kind (its L2 and SMs), not on the
//! order or the stream: optimized past the cache block needs n keys, 8 bytes a tile of 2^14 or
//! 2^13 keys and 256 bytes of alignment slack. Throws bitonic::error without a CUDA device, for
//! an n beyond the largest supported size, or for unknown enum values in opt.
template <class Key>
std::size_t workspace_bytes(std::size_t n, const options& opt = {});

//! Sorts each of `num_arrays` arrays of `array_size` keys on its own, in place in device memory:
//! array i is d_keys[i * array_size, (i + 1) * array_size), as the rows of a row-major matrix
//! (torch.sort(dim=-1) of a contiguous tensor). The order and NaN rules of `sort`, opt.direction
//! for every array; any array_size, not only powers of two. Asynchronous on opt.stream like
//! `sort`, with no device-wide synchronisation.
//!
//! How: arrays of up to one tile (2^14 four-byte or 2^13 eight-byte keys) are sorted in one launch,
//! each read and written once: a tile of registers holds several arrays, each padded to a power of
//! two, and runs only the stages of one array. Longer arrays get the passes of `sort`'s merged
//! plan run over all of them at once: the first pass on tiles, then one merge pass a doubling,
//! each array's runs merged on their own, alternating between the keys and a scratch of as many
//! keys; an array whose size is not a power of two runs them as if padded to one, the missing keys
//! skipped (nothing is padded in memory). Memory: none up to a tile; past it the scratch (from
//! opt.workspace, else the library's pool as for `sort`; where the device has none left, the
//! network's passes in place, block by block past one L2 block, as `sort`'s in-place plan);
//! with opt.stable for float and double keys, as below.
//!
//! Preconditions: d_keys holds num_arrays * array_size keys in device or managed memory of the
//! current device (null only when that is 0). opt.algo is automatic or optimized (the only
//! variant with a batched form). Not stable unless opt.stable; then float and double keys (whose
//! equivalent keys can differ in bits) sort as argsort_batched and a gather (at most 2^32 keys,
//! scratch as batched_workspace_bytes says); integer keys are the same either way.
//! Complexity: per array O(m log^2 m) comparisons for m = array_size rounded up to a power of two
//! (fewer for arrays up to a quarter past a power of two, whose first part and rest sort apart);
//! one pass over memory up to a tile (those arrays' rests once more), one more a doubling past it.
//! Throws bitonic::error (keys untouched) as `sort` does, when num_arrays * array_size overflows
//! or when num_arrays * 2^ceil(log2 array_size) exceeds the largest size, or for another
//! algorithm.
template <class Key>
void sort_batched(Key* d_keys, std::size_t num_arrays, std::size_t array_size,
                  const options& opt = {});

//! Bytes of workspace that `sort_batched<Key>(d_keys, num_arrays, array_size, opt)` needs (see
//! workspace_bytes): 0 for arrays of up to a tile; past it num_arrays * array_size keys, 8 bytes
//! a tile of positions (each array rounded up to a power of two) and 256 bytes of alignment
//! slack; with opt.stable for float and double keys, argsort_batched's scratch and a copy of the
//! keys. Throws bitonic::error as
//! sort_batched does for bad arguments, and without a CUDA device.
template <class Key>
std::size_t batched_workspace_bytes(std::size_t num_arrays, std::size_t array_size,
                                    const options& opt = {});

//! sort_batched for (key, value) records (torch.sort(dim=-1) with values): within each array,
//! d_keys[i] and d_values[i] are one record, and both arrays end with every array's records in
//! the sorted order of its keys. Values of 4 or 8 bytes moved as bits, as for sort_pairs; not
//! stable by default, stable with opt.stable (equivalent keys keep their order in the array).
//! How: sort_pairs' record words (key word and global position, or 4-byte key and value) sorted
//! by sort_batched<std::uint64_t>, then the same unpack or gathers; 4-byte keys with 4-byte
//! values, not stable, in arrays of up to 8192: one pass that makes the words as it loads and
//! splits them as it stores (no scratch). Memory: batched_pairs_workspace_bytes (as
//! pairs_workspace_bytes, with the batched word sort's).
//! Preconditions: as for sort_batched, for both arrays, which must not overlap; at most 2^32
//! records in all. opt.algo automatic or optimized. Complexity: one batched sort of 8-byte words
//! (two for 8-byte keys) plus O(n) passes. Throws bitonic::error (data untouched) as
//! sort_batched and sort_pairs do.
template <class Key, class Value>
void sort_batched_pairs(Key* d_keys, Value* d_values, std::size_t num_arrays,
                        std::size_t array_size, const options& opt = {});

//! Bytes of workspace that `sort_batched_pairs<Key, Value>` needs for these arrays (see
//! workspace_bytes); 0 for arrays of fewer than 2 keys.
template <class Key, class Value>
std::size_t batched_pairs_workspace_bytes(std::size_t num_arrays, std::size_t array_size,
                                          const options& opt = {});

//! argsort of each array on its own (torch.argsort(dim=-1, stable=True)): d_indices[i *
//! array_size + j] is the index within array i (0 .. array_size - 1) of its j-th key in sorted
//! order; stable whatever opt.stable says; keys untouched. Index is std::uint32_t or
//! std::uint64_t. How and memory: argsort's, with sort_batched<std::uint64_t> as the word sort
//! (batched_argsort_workspace_bytes); 4-byte keys in arrays of up to 8192 in one pass that makes
//! the words as it loads and writes the indices as it stores (no scratch). Preconditions: as for
//! sort_batched, for both arrays, which must not overlap; at most 2^32 keys in all. Throws
//! bitonic::error (indices untouched) as sort_batched and argsort do.
template <class Key, class Index>
void argsort_batched(const Key* d_keys, Index* d_indices, std::size_t num_arrays,
                     std::size_t array_size, const options& opt = {});

//! argsort_batched that also writes each array's keys in sorted order to d_sorted_keys (the
//! values and indices of torch.sort(dim=-1, stable=True)): d_sorted_keys[i * array_size + j] is
//! d_keys[i * array_size + d_indices[i * array_size + j]]. Stable; d_keys untouched. Same
//! workspace as argsort_batched (the keys come from the words or from d_keys through the
//! indices, in the pass that writes the indices). Preconditions: as for argsort_batched, and
//! d_sorted_keys holds as many keys in device memory apart from both other arrays. Throws as
//! argsort_batched does (outputs untouched).
template <class Key, class Index>
void argsort_batched(const Key* d_keys, Key* d_sorted_keys, Index* d_indices,
                     std::size_t num_arrays, std::size_t array_size, const options& opt = {});

//! Bytes of workspace that `argsort_batched<Key, Index>` needs for these arrays (see
//! workspace_bytes); 0 for arrays of fewer than 2 keys.
template <class Key, class Index>
std::size_t batched_argsort_workspace_bytes(std::size_t num_arrays, std::size_t array_size,
                                            const options& opt = {});

//! Sorts each segment of d_keys on its own (CUB's DeviceSegmentedSort, torch.sort over ragged
//! rows): segment i is [d_offsets[i], d_offsets[i + 1]) for i < num_segments (CSR offsets, Offset
//! std::uint32_t or std::uint64_t), in opt.direction, with `sort`'s order and NaN rules. Segments
//! may be empty or of any length; keys before d_offsets[0] are untouched. Not stable unless
//! opt.stable (equivalent keys then keep their order within the segment).
//!
//! How: a kernel bins the segments by length (and checks that the offsets never decrease); the
//! call reads the first and last offsets, then how many segments each bin holds, so it
//! **synchronises opt.stream two times** (three when a segment is longer than 8192 keys: their
//! list), as CUB's DeviceSegmentedSort does without CUDA dynamic parallelism, and cannot be
//! captured in a CUDA graph (bitonic::error when opt.stream is capturing). Segments of up to 8192
//! keys are sorted in one launch in shared memory and registers, several short segments a block,
//! each padded to a power of two (so one long segment never stalls a block of short ones); longer
//! segments are copied, class by class, into rows of a power of two (padded with the key that
//! sorts last), sorted by sort_batched (sort_batched_pairs, argsort_batched for the other forms)
//! and copied back. Memory: segments_workspace_bytes<Key>(num_keys, num_segments, opt) bytes (12
//! bytes a segment for the bins, 16 a possible long segment, the padded rows of the long
//! segments and their batched sort's scratch) from opt.workspace or else the library's pool, as
//! for `sort`.
//!
//! Preconditions: d_offsets holds num_segments + 1 non-decreasing offsets in device memory (null
//! only when num_segments is 0); d_keys holds d_offsets[num_segments] keys in device memory.
//! opt.algo automatic or optimized. Complexity: per segment of m keys O(m log^2 m) comparisons;
//! one read and write of the keys for segments of up to 8192 keys; longer ones cost a batched
//! sort of their padded rows (at most twice their keys) plus two copies.
//! Throws bitonic::error (keys untouched) on bad arguments, offsets that decrease (naming the
//! first such segment), too small a workspace, a capturing stream, or for another algorithm.
template <class Key, class Offset>
void sort_segments(Key* d_keys, const Offset* d_offsets, std::size_t num_segments,
                   const options& opt = {});

//! sort_segments for (key, value) records: d_keys[i] and d_values[i] are one record, and within
//! each segment both arrays end in the sorted order of the keys (values of 4 or 8 bytes moved as
//! bits). Stable whatever opt.stable says (records with equivalent keys keep their order within
//! the segment): short segments break ties by position, and long ones take the stable
//! sort_batched_pairs so that the padding stays behind the records. Preconditions and errors as
//! for sort_segments, for both arrays, which must not overlap.
template <class Key, class Value, class Offset>
void sort_segments_pairs(Key* d_keys, Value* d_values, const Offset* d_offsets,
                         std::size_t num_segments, const options& opt = {});

//! argsort of each segment on its own: d_indices[j] for j in segment i is the index within the
//! segment (0 .. its length - 1) of its (j - d_offsets[i])-th key in sorted order; stable
//! whatever opt.stable says; keys untouched. Index std::uint32_t or std::uint64_t. Segments
//! longer than 8192 keys go through argsort_batched in padded rows. Preconditions and errors as
//! for sort_segments, for both arrays, which must not overlap; a segment holds at most 2^32 keys
//! (as for the pairs and stable forms).
template <class Key, class Index, class Offset>
void argsort_segments(const Key* d_keys, Index* d_indices, const Offset* d_offsets,
                      std::size_t num_segments, const options& opt = {});

//! Bytes of workspace that sort_segments<Key> (value_bytes 0), sort_segments_pairs<Key, Value>
//! (value_bytes = sizeof(Value)) or argsort_segments<Key, Index> (index_bytes = sizeof(Index))
//! need for num_keys keys in num_segments segments (see workspace_bytes): enough for any
//! lengths of the segments. Throws bitonic::error for bad arguments, and without a CUDA device.
template <class Key>
std::size_t segments_workspace_bytes(std::size_t num_keys, std::size_t num_segments,
                                     const options& opt = {}, std::size_t value_bytes = 0,
                                     std::size_t index_bytes = 0);

//! sort_segments for keys and offsets in host memory (pageable or pinned), synchronous like
//! sort_host, with the same result as sort_segments (bit for bit when opt.stable; otherwise the
//! same keys in the same order, equivalent keys in some order of theirs). With a GPU, when the
//! keys from h_offsets[0] to h_offsets[num_segments], the offsets and segments_workspace_bytes
//! fit the device memory the call may use (opt.max_device_bytes, or what is free), they pass
//! through sort_host's staging buffers to the device, sort_segments sorts them and they come
//! back; otherwise, or without a GPU, the CPU sorts each segment with std::sort (std::stable_sort
//! with opt.stable) under the order of `sort`, one segment after another on one thread.
//! Preconditions: as for sort_segments, in host memory. Throws bitonic::error (keys untouched) on
//! null pointers with segments to sort, offsets that decrease (naming the first such segment),
//! bad options, failing CUDA calls or allocations. Complexity: per segment of m keys O(m log m)
//! comparisons on the CPU, as sort_segments on the device, plus O(n) transfers.
template <class Key, class Offset>
void sort_segments_host(Key* h_keys, const Offset* h_offsets, std::size_t num_segments,
                        const options& opt = {});

//! The k first keys of each of `batch` arrays of `n` keys in the order of opt.direction, sorted:
//! ascending gives the k smallest keys of each array, order::descending the k largest (as
//! torch.topk(largest=True)), under the order and NaN rules of `sort` (NaNs are the largest keys).
//! Array r is d_keys[r * n, (r + 1) * n); its k keys go to d_out_keys[r * k, (r + 1) * k) (bit for
//! bit as they are in d_keys) and their indices within the array to d_out_indices[r * k, ...).
//! Among equal keys the lower index comes first, so the result is exactly the first k of a stable
//! sort of each array (argsort_batched), for every k from 0 to n. Either output may be null
//! (keys only, or indices only), not both unless batch * k is 0; the keys are not changed. Index
//! is std::uint32_t or std::uint64_t. Asynchronous on opt.stream like `sort`, with no device-wide
//! synchronisation.
//!
//! How: 4-byte keys with k <= 2048 are selected: each key becomes a record word (its order word
//! above its index), each thread block reads a part of an array once and keeps the K best words
//! (K = k rounded up to a power of two) in shared memory, choosing them among the keys that beat
//! the K-th best so far by a radix selection; the parts' candidates are selected again the same
//! way until one part an array is left, whose K words the network sorts. Where that takes several
//! passes, the call's keys fit the L2 (at most 2^22) and the device holds all the blocks at once,
//! one radix selection over each whole array finds its k best words instead (up to eight counting
//! rounds over all of it in one cooperative launch), and each is written to its place among them
//! (the count of smaller ones). Other keys, and larger
//! k, take the first k of a stable batched argsort (argsort_batched's record words), up to 2^28
//! keys (whole arrays) at a time. Memory: topk_workspace_bytes<Key, Index>(batch, n, k, opt)
//! bytes (the selection's candidates, none when one part an array suffices; the radix
//! selection's k words and ~1 KiB an array; the argsort's 8 bytes a key sorted at once plus its
//! word sort's), from opt.workspace or else the library's pool, as for `sort`.
//! Preconditions: the three arrays in device or managed memory of the current device, the outputs
//! apart from each other and from the keys; k <= n <= 2^32; opt.algo automatic or optimized.
//! Complexity: selected: one read of the keys, plus up to 8 counting rounds over the kept words
//! and the survivors of the threshold per buffer of them (about K ln(n / K) survivors an array on
//! random keys; every key on adversarial orders), and O(K log^2 K) comparisons an array (by radix:
//! up to nine reads of each array, usually three or four, and k^2 comparisons); otherwise
//! per array O(m log^2 m) comparisons for m = n rounded up to a power of two. Throws bitonic::error
//! (outputs untouched) as argsort_batched does, when k > n, n > 2^32 or batch * n overflows, or
//! when both outputs are null with outputs to write.
template <class Key, class Index>
void topk(const Key* d_keys, std::size_t batch, std::size_t n, std::size_t k, Key* d_out_keys,
          Index* d_out_indices, const options& opt = {});

//! Bytes of workspace that `topk<Key, Index>(..., batch, n, k, ...)` needs (see workspace_bytes);
//! depends on the device's SMs for the select path. 0 when nothing is sorted (batch or k is 0, or
//! n < 2) and when the select path cuts each array into one part (no candidates to keep: short
//! arrays, or many of them). Throws bitonic::error as topk does for bad sizes, and without a CUDA
//! device.
template <class Key, class Index>
std::size_t topk_workspace_bytes(std::size_t batch, std::size_t n, std::size_t k,
                                 const options& opt = {});

//! topk for arrays in host memory (pageable or pinned), synchronous like sort_host, with the same
//! result: with a GPU, when the keys, the outputs and topk_workspace_bytes fit the device memory
//! the call may use (opt.max_device_bytes, or what is free) and n <= 2^32, through the device;
//! otherwise on the CPU (std::partial_sort of each array's positions; O(n log k) per array,
//! single-threaded). Throws bitonic::error as topk does (null arrays with work to do, k > n, bad
//! options), and on failing CUDA calls or allocations; outputs untouched on argument errors.
template <class Key, class Index>
void topk_host(const Key* h_keys, std::size_t batch, std::size_t n, std::size_t k, Key* h_out_keys,
               Index* h_out_indices, const options& opt = {});

//! Sorts `n` (key, value) pairs in device memory by key, in place: d_keys[i] and d_values[i] are
//! one record, and both arrays end in the sorted order of the keys (the order and NaN rules of
//! `sort`). Not stable by default: records with equivalent keys end in some order of theirs;
//! with opt.stable they keep their input order. Values are moved as bits; any 4- or 8-byte
//! trivially copyable value type is one of the precompiled ones reinterpreted (e.g. a struct of
//! two floats as uint64_t).
//!
//! How: 4-byte keys with 4-byte values, not stable: each record becomes one 64-bit word (the
//! key's order word high, the value low), sorted with the 8-byte network and split again; from
//! 2^23 records (where the word sort splits into buckets) the split makes the words as it reads
//! the two arrays and the last passes write keys and values back apart, with no pass of their own.
//! 8-byte keys, not stable, from 2^19 records: the same with one 16-byte word a record (the key's
//! order word high, the value low; equal keys end ordered by their values' bits), sorted by the
//! split, its refinement, the first pass and merges on those words. Otherwise (stable, 4-byte keys
//! with 8-byte values, fewer 8-byte keys) an argsort (see below), then the values, and the keys
//! that the words cannot give back (stable float keys, 8-byte keys but integers from 2^22),
//! gathered in that order (past the split, and for 8-byte keys from 2^22, through positions that
//! the last passes write). Asynchronous on opt.stream like `sort`.
//! Memory: pairs_workspace_bytes<Key, Value>(n, opt) bytes of scratch (8 bytes a pair, plus
//! copies of what is gathered and 4-byte positions, plus the 8-byte sort's; 32 a pair and the
//! split's tables for the 16-byte words), from opt.workspace or else the library's pool, as for
//! `sort`.
//!
//! Preconditions: as for `sort`, for both arrays, which must not overlap; n <= 2^32.
//! Complexity: one 8-byte key sort of n words (two for fewer than 2^19 8-byte keys, or one sort
//! of 16-byte words) plus O(n) passes.
//! Throws bitonic::error (data untouched) as `sort` does, and when the arrays overlap or n > 2^32.
template <class Key, class Value>
void sort_pairs(Key* d_keys, Value* d_values, std::size_t n, const options& opt = {});

//! Bytes of workspace that `sort_pairs<Key, Value>(d_keys, d_values, n, opt)` needs (see
//! workspace_bytes); 0 for n < 2.
template <class Key, class Value>
std::size_t pairs_workspace_bytes(std::size_t n, const options& opt = {});

//! Writes to d_indices[0, n) the positions of the keys in sorted order (the order and NaN rules
//! of `sort`): d_keys[d_indices[0]], d_keys[d_indices[1]], ... is sorted. The keys are not
//! changed. Index is std::uint32_t or std::uint64_t. Not stable by default: the indices of equal
//! keys (and of -0.0 and +0.0, of NaNs) may come in any order; with opt.stable they ascend.
//! Unstable, 4-byte keys from 2^23 take 5-7 % less time (the split scatters them without ranking
//! equal keys, and tiles that are their keys' last pass leave ties as they lie: PERFORMANCE log
//! 89); elsewhere the result is the stable one either way.
//!
//! How: each key's order word (stable: -0.0 and +0.0 one word, every NaN one word; complemented
//! when descending) and its position make a 64-bit word; sorting those with the 8-byte network
//! orders by key and then by position. 8-byte keys from 2^22: the key's order word and its position
//! make one 16-byte word, sorted as sort_pairs sorts them; fewer take two 8-byte sorts, the low
//! half of the key's word first, then the high half (least significant digit first; each sort is
//! stable, so the second keeps the first's order among equal high halves). 4-byte keys from 2^23
//! and 8-byte keys from 2^22: the split reads the keys and the last passes write the indices (and
//! the sorted keys of integers) directly. Asynchronous on opt.stream like `sort`.
//! Memory: argsort_workspace_bytes<Key, Index>(n, opt) bytes of scratch (8 bytes a key plus the
//! 8-byte sort's; 4 more for 8-byte keys; 32 a key and the split's tables for 16-byte words), from
//! opt.workspace or the library's pool.
//!
//! Preconditions: as for `sort`, for both arrays, which must not overlap; n <= 2^32.
//! Complexity: one 8-byte key sort of n words (8-byte keys: two, or one of 16-byte words from
//! 2^22) plus O(n) passes.
//! Throws bitonic::error (indices untouched) as `sort` does, and when the arrays overlap or
//! n > 2^32.
template <class Key, class Index>
void argsort(const Key* d_keys, Index* d_indices, std::size_t n, const options& opt = {});

//! argsort that also writes the keys in sorted order to d_sorted_keys (torch.sort's values and
//! indices; stable as argsort, with opt.stable): d_sorted_keys[i] is d_keys[d_indices[i]]. d_keys
//! untouched; the same workspace as argsort (argsort_workspace_bytes). Where the sort splits its
//! keys into buckets (from 2^23 four-byte keys; 8-byte ones from 2^22) its last passes write the
//! sorted keys beside the indices; below that, one more pass gathers them through the indices.
//! Preconditions: as for argsort, and d_sorted_keys holds n keys in device memory apart from both
//! other arrays. Throws as argsort does (outputs untouched).
template <class Key, class Index>
void argsort(const Key* d_keys, Key* d_sorted_keys, Index* d_indices, std::size_t n,
             const options& opt = {});

//! Bytes of workspace that `argsort<Key, Index>(d_keys, d_indices, n, opt)` needs (see
//! workspace_bytes); 0 for n < 2.
template <class Key, class Index>
std::size_t argsort_workspace_bytes(std::size_t n, const options& opt = {});

//! sort_pairs for (key, value) pairs in host memory (pageable or pinned), synchronous like
//! sort_host. With a GPU, when n <= 2^32 and the pairs and pairs_workspace_bytes fit the device
//! memory the call may use (opt.max_device_bytes, or what is free), they pass through sort_host's
//! staging buffers to the device, sort_pairs sorts them (stable when opt.stable) and they come
//! back; device memory is allocated and freed within the call. Otherwise (no GPU, or too large)
//! the CPU sorts them: positions by key with std::stable_sort (always stable; single-threaded),
//! then gathers (extra host memory: 8 bytes a record, and a copy of the array being gathered).
//! Preconditions: the arrays hold n elements each and do not overlap. Throws bitonic::error on null
//! pointers with n > 0, overlapping arrays, bad options, failing CUDA calls or allocations; the
//! data are untouched when the error comes before the results are copied back. Complexity: as
//! sort_pairs, plus O(n) transfers; on the CPU O(n log n) comparisons.
template <class Key, class Value>
void sort_pairs_host(Key* h_keys, Value* h_values, std::size_t n, const options& opt = {});

//! argsort for keys in host memory, writing h_indices[0, n) (stable), synchronous like sort_host:
//! on the device as sort_pairs_host decides (keys and indices and argsort_workspace_bytes within
//! the budget, n <= 2^32), else on the CPU with std::stable_sort. uint32_t indices take at most
//! 2^32 keys (bitonic::error beyond). Throws as sort_pairs_host does; the keys are never changed.
template <class Key, class Index>
void argsort_host(const Key* h_keys, Index* h_indices, std::size_t n, const options& opt = {});

//! Gives back to the device the memory that the library keeps cached in its own memory pool (one
//! pool per device, created by the first sort that needs scratch without a workspace). Waits for
//! every device that has such a pool to finish its work (cudaDeviceSynchronize), as
//! torch.cuda.empty_cache() does, then trims each pool to nothing. Safe to call at any time;
//! later sorts allocate again. The pools live as long as the devices' contexts: an application
//! that resets a device (cudaDeviceReset) must not sort on it without a workspace afterwards.
//! Throws bitonic::error on a failing CUDA call.
void release_cached_memory();

//! Bytes the library's memory pool holds reserved on the current device (0 when it has none): the
//! scratch that sorts without a workspace keep between calls. Throws bitonic::error on a failing
//! CUDA call.
std::size_t cached_memory_bytes();

//! Sorts `n` keys in host memory with the CPU reference executor: the same plan and network as
//! `sort` with the same options (opt.stream is ignored). Synchronous; each pass is split over the
//! host's threads. Meant for tests and for machines without a GPU. Throws bitonic::error on a null
//! pointer with n > 0. Not stable unless opt.stable (then std::stable_sort for float keys).
//! Complexity as for `sort`.
template <class Key>
void sort_on_cpu(Key* h_keys, std::size_t n, const options& opt = {});

//! Sorts `n` keys in host memory (pageable or pinned) and returns once they are sorted
//! (synchronous). With a GPU the keys stream through a few pinned staging buffers to the device
//! and back, overlapping host copies, transfers and the sort; data larger than
//! opt.max_device_bytes (or the device's free memory) is sorted in device-sized runs that are then
//! merged. Its kernels run on opt.stream after the work already there, its copies on an internal
//! stream. Without a GPU it runs sort_on_cpu. Throws bitonic::error on a null pointer with n > 0,
//! a failing CUDA call or a failed allocation: errors found before the first sorted key is copied
//! back (arguments, allocations) leave the keys untouched; after that their order is unspecified.
//! Not stable unless opt.stable; then float and double keys are uploaded whole and sorted by the
//! device's stable sort when they and its scratch (workspace_bytes with opt.stable) fit the
//! budget, otherwise sorted on the CPU with std::stable_sort (single-threaded: slow for large n).
//! Complexity as for `sort`, plus O(n) transfers (and O(n log runs) merge work out of core).
template <class Key>
void sort_host(Key* h_keys, std::size_t n, const options& opt = {});

//! The name of an algorithm as the CLI and the benchmark CSV spell it ("global_step", ...).
std::string_view to_string(algorithm algo) noexcept;

//! Passes over memory that `algo` (automatic resolved) makes to sort n keys of key_bytes bytes,
//! as `sort` plans them on the current CUDA device (the optimized plan depends on its SMs and
//! L2; without a device: as for none in particular, which may differ at small n):
//! each pass reads and writes every key once, so passes * 2 * n * key_bytes over the device's
//! copy bandwidth is the fastest such a sort can be. block_merge's merge passes count once each,
//! though their binary searches re-read parts of the partner runs. Throws bitonic::error for an n
//! beyond 2^63 or a key size other than 4 or 8.
std::size_t memory_passes(algorithm algo, std::size_t n, std::size_t key_bytes);

//! The algorithm that `automatic` selects for `n` keys of `key_bytes` bytes each: optimized (on a
//! device whose blocks cannot opt in to its 64 KiB tiles, such as sm_75, sort uses shared_tiles).
algorithm resolve_automatic(std::size_t n, std::size_t key_bytes) noexcept;

//! 1- and 2-byte keys: int8_t, uint8_t, int16_t, uint16_t, __half and __nv_bfloat16 (CUDA's
//! half and bfloat16, in the total order of float: NaNs last when ascending and first when
//! descending, -0.0 equal to +0.0; order.hpp's ascending_less orders them). For these the
//! keys-only entry points are precompiled (sort in place and out of place, workspace_bytes,
//! sort_batched, batched_workspace_bytes, sort_on_cpu, sort_host, with the contracts above), and
//! the record sorts (below).
//!
//! How: the network does not run on them. Each key is widened to a 32-bit word whose unsigned `<`
//! refines the key order (its bits zero-extended: integers with the sign bit flipped, half and
//! bfloat16 mapped as float is), the words are sorted by sort<std::uint32_t> (in opt.direction;
//! sort_batched<std::uint32_t> for sort_batched) and narrowed back, bit for bit. So sort and
//! sort_on_cpu give the same bits for the same input. With opt.stable, __half and __nv_bfloat16
//! keys (whose equivalent keys can differ in bits) go as 64-bit words of their class, position and
//! bits through sort<std::uint64_t> instead (at most 2^32 keys); integer keys are the same either
//! way. Memory: sort needs workspace_bytes<Key>(n, opt) bytes of scratch for n >= 2 even where
//! 4-byte keys sort in place: 4 bytes a key for the words (stable half/bfloat16: 8) plus the word
//! sort's own workspace and alignment slack, from opt.workspace (too small: bitonic::error naming
//! the bytes, keys untouched) or else the library's pool, as for `sort` (no pool memory:
//! bitonic::error, keys untouched). sort_on_cpu allocates the words (4 bytes a key) on the host.
//! sort_host uploads the keys whole and sorts them with sort when the keys plus that scratch fit
//! the device memory it may use (opt.max_device_bytes, else what is free), and otherwise, or
//! without a GPU, sorts them with sort_on_cpu; it has no out-of-core path for these keys.
//! Complexity: one sort of n 4-byte words (stable half/bfloat16: 8-byte words) plus two O(n)
//! passes. Not stable (equivalent keys may be reordered) unless opt.stable.
#define BITONIC_FOR_EACH_SMALL_KEY(X) \
  X(std::int8_t)                      \
  X(std::uint8_t)                     \
  X(std::int16_t)                     \
  X(std::uint16_t)                    \
  X(__half)                           \
  X(__nv_bfloat16)

#define BITONIC_DECLARE_SMALL_KEY(Key)                                                             \
  template <>                                                                                      \
  void sort<Key>(Key*, std::size_t, const options&);                                               \
  template <>                                                                                      \
  void sort<Key>(const Key*, Key*, std::size_t, const options&);                                   \
  template <>                                                                                      \
  std::size_t workspace_bytes<Key>(std::size_t, const options&);                                   \
  template <>                                                                                      \
  void sort_batched<Key>(Key*, std::size_t, std::size_t, const options&);                          \
  template <>                                                                                      \
  std::size_t batched_workspace_bytes<Key>(std::size_t, std::size_t, const options&);              \
  template <>                                                                                      \
  void sort_on_cpu<Key>(Key*, std::size_t, const options&);                                        \
  template <>                                                                                      \
  void sort_host<Key>(Key*, std::size_t, const options&);                                          \
  template <>                                                                                      \
  std::size_t segments_workspace_bytes<Key>(std::size_t, std::size_t, const options&, std::size_t, \
                                            std::size_t);                                          \
  template <>                                                                                      \
  void sort_segments<Key, std::uint32_t>(Key*, const std::uint32_t*, std::size_t, const options&); \
  template <>                                                                                      \
  void sort_segments<Key, std::uint64_t>(Key*, const std::uint64_t*, std::size_t, const options&); \
  extern template void sort_segments_host<Key, std::uint32_t>(Key*, const std::uint32_t*,          \
                                                              std::size_t, const options&);        \
  extern template void sort_segments_host<Key, std::uint64_t>(Key*, const std::uint64_t*,          \
                                                              std::size_t, const options&);
BITONIC_FOR_EACH_SMALL_KEY(BITONIC_DECLARE_SMALL_KEY)
#undef BITONIC_DECLARE_SMALL_KEY

//! X(Key) for every key type the library is precompiled for.
#define BITONIC_FOR_EACH_KEY(X) \
  X(std::int32_t)               \
  X(std::uint32_t)              \
  X(std::int64_t)               \
  X(std::uint64_t)              \
  X(float)                      \
  X(double)

#define BITONIC_DECLARE_KEY(Key)                                                                  \
  extern template void sort<Key>(Key*, std::size_t, const options&);                              \
  extern template void sort<Key>(const Key*, Key*, std::size_t, const options&);                  \
  extern template std::size_t workspace_bytes<Key>(std::size_t, const options&);                  \
  extern template void sort_batched<Key>(Key*, std::size_t, std::size_t, const options&);         \
  extern template std::size_t batched_workspace_bytes<Key>(std::size_t, std::size_t,              \
                                                           const options&);                       \
  extern template void sort_on_cpu<Key>(Key*, std::size_t, const options&);                       \
  extern template void sort_host<Key>(Key*, std::size_t, const options&);                         \
  extern template std::size_t segments_workspace_bytes<Key>(                                      \
      std::size_t, std::size_t, const options&, std::size_t, std::size_t);                        \
  extern template void sort_segments<Key, std::uint32_t>(Key*, const std::uint32_t*, std::size_t, \
                                                         const options&);                         \
  extern template void sort_segments<Key, std::uint64_t>(Key*, const std::uint64_t*, std::size_t, \
                                                         const options&);                         \
  extern template void sort_segments_host<Key, std::uint32_t>(Key*, const std::uint32_t*,         \
                                                              std::size_t, const options&);       \
  extern template void sort_segments_host<Key, std::uint64_t>(Key*, const std::uint64_t*,         \
                                                              std::size_t, const options&);
BITONIC_FOR_EACH_KEY(BITONIC_DECLARE_KEY)
#undef BITONIC_DECLARE_KEY

#define BITONIC_DECLARE_PAIR(Key, Value)                                                          \
  extern template void sort_pairs<Key, Value>(Key*, Value*, std::size_t, const options&);         \
  extern template std::size_t pairs_workspace_bytes<Key, Value>(std::size_t, const options&);     \
  extern template void sort_batched_pairs<Key, Value>(Key*, Value*, std::size_t, std::size_t,     \
                                                      const options&);                            \
  extern template std::size_t batched_pairs_workspace_bytes<Key, Value>(std::size_t, std::size_t, \
                                                                        const options&);          \
  extern template void sort_pairs_host<Key, Value>(Key*, Value*, std::size_t, const options&);    \
  extern template void sort_segments_pairs<Key, Value, std::uint32_t>(                            \
      Key*, Value*, const std::uint32_t*, std::size_t, const options&);                           \
  extern template void sort_segments_pairs<Key, Value, std::uint64_t>(                            \
      Key*, Value*, const std::uint64_t*, std::size_t, const options&);
#define BITONIC_DECLARE_INDEX(Key, Index)                                                          \
  extern template void argsort<Key, Index>(const Key*, Index*, std::size_t, const options&);       \
  extern template void argsort<Key, Index>(const Key*, Key*, Index*, std::size_t, const options&); \
  extern template void argsort_batched<Key, Index>(const Key*, Key*, Index*, std::size_t,          \
                                                   std::size_t, const options&);                   \
  extern template std::size_t argsort_workspace_bytes<Key, Index>(std::size_t, const options&);    \
  extern template void argsort_batched<Key, Index>(const Key*, Index*, std::size_t, std::size_t,   \
                                                   const options&);                                \
  extern template std::size_t batched_argsort_workspace_bytes<Key, Index>(                         \
      std::size_t, std::size_t, const options&);                                                   \
  extern template void argsort_host<Key, Index>(const Key*, Index*, std::size_t, const options&);  \
  extern template void topk<Key, Index>(const Key*, std::size_t, std::size_t, std::size_t, Key*,   \
                                        Index*, const options&);                                   \
  extern template std::size_t topk_workspace_bytes<Key, Index>(std::size_t, std::size_t,           \
                                                               std::size_t, const options&);       \
  extern template void topk_host<Key, Index>(const Key*, std::size_t, std::size_t, std::size_t,    \
                                             Key*, Index*, const options&);                        \
  extern template void argsort_segments<Key, Index, std::uint32_t>(                                \
      const Key*, Index*, const std::uint32_t*, std::size_t, const options&);                      \
  extern template void argsort_segments<Key, Index, std::uint64_t>(                                \
      const Key*, Index*, const std::uint64_t*, std::size_t, const options&);
//! PAIR(Key, Value) for every value type sort_pairs takes, then INDEX(Key, Index) for every
//! index type argsort writes: the record entry points precompiled for one key type.
#define BITONIC_FOR_EACH_RECORD(PAIR, INDEX, Key) \
  PAIR(Key, std::int32_t)                         \
  PAIR(Key, std::uint32_t)                        \
  PAIR(Key, std::int64_t)                         \
  PAIR(Key, std::uint64_t)                        \
  PAIR(Key, float)                                \
  PAIR(Key, double)                               \
  INDEX(Key, std::uint32_t)                       \
  INDEX(Key, std::uint64_t)
#define BITONIC_DECLARE_RECORDS(Key) \
  BITONIC_FOR_EACH_RECORD(BITONIC_DECLARE_PAIR, BITONIC_DECLARE_INDEX, Key)
BITONIC_FOR_EACH_KEY(BITONIC_DECLARE_RECORDS)
#undef BITONIC_DECLARE_RECORDS
#undef BITONIC_DECLARE_INDEX
#undef BITONIC_DECLARE_PAIR

//! Records of 1- and 2-byte keys (BITONIC_FOR_EACH_SMALL_KEY): sort_pairs, argsort (both forms),
//! their workspace sizes and host forms, with the contracts above, every value and index type.
//! How: argsort sorts each key's 32-bit class word (equal exactly for equivalent keys: -0.0 and
//! +0.0, all NaNs) with argsort<std::uint32_t>, and gathers the sorted keys through the indices;
//! sort_pairs sorts each key's 32-bit word (small_word, bit for bit) with its values by
//! sort_pairs<std::uint32_t, Value> and narrows the words back over the keys, except with
//! opt.stable for __half and __nv_bfloat16 keys, which take an argsort and gathers of keys and
//! values. Memory: 4 bytes a key of words (or indices) plus the 4-byte record sort's scratch
//! (stable 2-byte floats: copies of the keys and values too); complexity as for 4-byte keys.
//! sort_batched_pairs and argsort_batched: the same with the batched 4-byte forms, each array's
//! keys and values gathered from its own row. sort_segments, sort_segments_pairs and
//! argsort_segments (and segments_workspace_bytes, sort_segments_host): the keys of the offsets'
//! span [d_offsets[0], d_offsets[num_segments]) widen to words (argsort: class words; pairs and
//! stable keys of __half / __nv_bfloat16: 64-bit words of class, position and bits, at most 2^32
//! keys in the span; otherwise each key's own 32-bit word), the 4- or 8-byte segmented sort sorts
//! them and they narrow back: one synchronisation more than sort_segments (for the span), and 4
//! (or 8) bytes a key of the span more scratch. topk (topk_workspace_bytes, topk_host): each key's
//! class word, topk<std::uint32_t> of those (indices into scratch when d_out_indices is null) and
//! the keys gathered bit for bit through the indices; 4 bytes a key more scratch.
#define BITONIC_DECLARE_SMALL_PAIR(Key, Value)                                                     \
  template <>                                                                                      \
  void sort_pairs<Key, Value>(Key*, Value*, std::size_t, const options&);                          \
  template <>                                                                                      \
  std::size_t pairs_workspace_bytes<Key, Value>(std::size_t, const options&);                      \
  extern template void sort_pairs_host<Key, Value>(Key*, Value*, std::size_t, const options&);     \
  template <>                                                                                      \
  void sort_batched_pairs<Key, Value>(Key*, Value*, std::size_t, std::size_t, const options&);     \
  template <>                                                                                      \
  std::size_t batched_pairs_workspace_bytes<Key, Value>(std::size_t, std::size_t, const options&); \
  template <>                                                                                      \
  void sort_segments_pairs<Key, Value, std::uint32_t>(Key*, Value*, const std::uint32_t*,          \
                                                      std::size_t, const options&);                \
  template <>                                                                                      \
  void sort_segments_pairs<Key, Value, std::uint64_t>(Key*, Value*, const std::uint64_t*,          \
                                                      std::size_t, const options&);
#define BITONIC_DECLARE_SMALL_INDEX(Key, Index)                                                   \
  template <>                                                                                     \
  void argsort<Key, Index>(const Key*, Index*, std::size_t, const options&);                      \
  template <>                                                                                     \
  void argsort<Key, Index>(const Key*, Key*, Index*, std::size_t, const options&);                \
  template <>                                                                                     \
  std::size_t argsort_workspace_bytes<Key, Index>(std::size_t, const options&);                   \
  extern template void argsort_host<Key, Index>(const Key*, Index*, std::size_t, const options&); \
  template <>                                                                                     \
  void argsort_batched<Key, Index>(const Key*, Key*, Index*, std::size_t, std::size_t,            \
                                   const options&);                                               \
  template <>                                                                                     \
  void argsort_batched<Key, Index>(const Key*, Index*, std::size_t, std::size_t, const options&); \
  template <>                                                                                     \
  std::size_t batched_argsort_workspace_bytes<Key, Index>(std::size_t, std::size_t,               \
                                                          const options&);                        \
  template <>                                                                                     \
  void topk<Key, Index>(const Key*, std::size_t, std::size_t, std::size_t, Key*, Index*,          \
                        const options&);                                                          \
  template <>                                                                                     \
  std::size_t topk_workspace_bytes<Key, Index>(std::size_t, std::size_t, std::size_t,             \
                                               const options&);                                   \
  extern template void topk_host<Key, Index>(const Key*, std::size_t, std::size_t, std::size_t,   \
                                             Key*, Index*, const options&);                       \
  template <>                                                                                     \
  void argsort_segments<Key, Index, std::uint32_t>(const Key*, Index*, const std::uint32_t*,      \
                                                   std::size_t, const options&);                  \
  template <>                                                                                     \
  void argsort_segments<Key, Index, std::uint64_t>(const Key*, Index*, const std::uint64_t*,      \
                                                   std::size_t, const options&);
#define BITONIC_DECLARE_SMALL_RECORDS(Key) \
  BITONIC_FOR_EACH_RECORD(BITONIC_DECLARE_SMALL_PAIR, BITONIC_DECLARE_SMALL_INDEX, Key)
BITONIC_FOR_EACH_SMALL_KEY(BITONIC_DECLARE_SMALL_RECORDS)
#undef BITONIC_DECLARE_SMALL_RECORDS
#undef BITONIC_DECLARE_SMALL_INDEX
#undef BITONIC_DECLARE_SMALL_PAIR

}  // namespace bitonic
