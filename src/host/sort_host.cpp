// bitonic::sort_host: keys in host memory, sorted on the GPU. Pageable keys stream through the
// pinned staging ring in 16 MiB chunks: while the copy threads fill one buffer, the DMA engine
// drains another, so the host copies and PCIe transfers overlap, and the GPU sorts each chunk
// (the network's stages up to the chunk size) as soon as it has landed; only the wider stages
// wait for the last chunk. Keys that do not fit the device (or opt.max_device_bytes) are sorted
// out of core: device-sized runs, then streamed merges.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <type_traits>

#include "api/device_ops.hpp"
#include "api/options.hpp"
#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "host/out_of_core.hpp"
#include "host/staging.hpp"
#include "host/transfer.hpp"
#include "network/network.hpp"
#include "runtime/stream_buffer.hpp"

namespace bitonic {
namespace host {
namespace {

constexpr const char* caller = "bitonic::sort_host";
constexpr const char* allocation_failed =
    "bitonic::sort_host: cudaMallocAsync of the device buffer";

//! The GPU backend of sort_out_of_core (see out_of_core.hpp): one device buffer holds a run while
//! runs are sorted, and afterwards a merge piece's two inputs, its output and the merge's splits.
template <class Key>
struct gpu_backend {
  transfer<Key>& moves;
  Key* device;
  std::size_t device_keys;
  const options& opt;
  std::size_t piece = merge_piece_keys(device_keys);
  //! Where sort_run merges the chunks' runs out of place when there is room for it (a run of
  //! device_keys keys and its splits), else null: the network's stages past the chunk in place.
  Key* scratch = nullptr;

  //! Bytes from a buffer's start to a merge's splits stored after `keys` keys: 8-byte aligned.
  static std::size_t splits_offset(std::size_t keys) { return (keys * sizeof(Key) + 7) / 8 * 8; }

  //! Keys of scratch that a run of n keys needs: n, and the splits 8-byte aligned after them.
  static std::size_t scratch_keys(std::size_t n) {
    return (splits_offset(n) + dispatch::merge_split_bytes<Key>(n) + sizeof(Key) - 1) / sizeof(Key);
  }

  //! The most keys a merge piece may have: its inputs and output, 2 * piece keys, and the
  //! merge's splits (8-byte aligned after them) fit in device_keys keys. 0 where none fit.
  static std::size_t merge_piece_keys(std::size_t device_keys) {
    const auto bytes_for = [](std::size_t keys) {
      return splits_offset(2 * keys) + dispatch::merge_split_bytes<Key>(keys);
    };
    const std::size_t have = device_keys * sizeof(Key);
    std::size_t keys = device_keys / 2;
    while (keys > 0 && bytes_for(keys) > have) {
      // A key less takes 2 * sizeof(Key) bytes off the inputs and output: never more than needed.
      keys -= std::max<std::size_t>(1, (bytes_for(keys) - have) / (2 * sizeof(Key)));
    }
    return keys;
  }

  std::size_t run_keys() const { return device_keys; }
  std::size_t piece_keys() const { return piece; }

  //! Sorts keys[0, n) through the device. With a network, each chunk is sorted as soon as it
  //! has landed, while the next ones are copied, and only the wider stages wait for all keys:
  //! with the optimized path and a scratch, one streaming merge a stage (as `sort` past the
  //! cache), else the network's stages in place.
  void sort_run(Key* keys, std::size_t n) {
    const options on_device{opt.direction, opt.algo, opt.stream};
    constexpr std::size_t chunk_keys = transfer<Key>::chunk_keys;
    const algorithm algo = api::concrete_algorithm(opt, n, sizeof(Key));
    Key* sorted = device;
    if (n <= chunk_keys || algo == algorithm::block_merge) {
      moves.upload(device, keys, n);
      bitonic::sort(device, n, on_device);
    } else {
      moves.upload(device, keys, n, [&](std::size_t begin, std::size_t count) {
        bitonic::sort(device + begin, count, on_device);
      });
      const unsigned sorted_log2 = network::ceil_log2(chunk_keys);
      if (scratch != nullptr && algo == algorithm::optimized) {
        void* const splits = reinterpret_cast<unsigned char*>(scratch) + splits_offset(n);
        sorted = dispatch::merge_sorted_runs(device, scratch, splits, n, sorted_log2, opt.direction,
                                             opt.stream);
      } else {
        dispatch::sort_sorted_blocks(device, n, sorted_log2, on_device);
      }
    }
    moves.download(keys, sorted, n);
  }

  void merge_piece(const Key* a, std::size_t a_count, const Key* b, std::size_t b_count, Key* out) {
    Key* const inputs = device;
    Key* const merged = device + piece;
    void* const splits = reinterpret_cast<unsigned char*>(device) + splits_offset(2 * piece);
    moves.upload(inputs, a, a_count);
    moves.upload(inputs + a_count, b, b_count);
    dispatch::merge_on_device(static_cast<const Key*>(inputs), a_count, a_count + b_count, merged,
                              splits, opt.direction, opt.stream);
    moves.download(out, merged, a_count + b_count);
  }

  void copy(Key* dst, const Key* src, std::size_t n) { moves.host_copy(dst, src, n); }
};

template <class Key>
void sort_host_on_gpu(Key* h_keys, std::size_t n, const options& opt) {
  const std::size_t budget_keys = device_budget(opt) / sizeof(Key);
  if (budget_keys < 2) {
    throw error(std::string(caller) + ": less than two keys of device memory to work with");
  }
  staging_lease ring;
  transfer<Key> moves(*ring, opt.stream);
  if (n <= budget_keys) {
    runtime::stream_buffer<Key> device;
    device.allocate(n, opt.stream, allocation_failed);
    gpu_backend<Key> backend{moves, device.get(), n, opt};
    // For the merges past the chunk, where it fits (else, or if the device turns out to lack
    // it, the stages past the chunk run in place).
    runtime::stream_buffer<Key> scratch;
    if (n + gpu_backend<Key>::scratch_keys(n) <= budget_keys &&
        scratch.try_allocate(gpu_backend<Key>::scratch_keys(n), opt.stream, allocation_failed)) {
      backend.scratch = scratch.get();
    }
    backend.sort_run(h_keys, n);
    return;
  }
  const std::unique_ptr<Key[]> scratch(new (std::nothrow) Key[n]);
  if (!scratch) {
    throw error(std::string(caller) + ": not enough host memory for the out-of-core merge (" +
                std::to_string(n * sizeof(Key)) + " bytes of scratch)");
  }
  runtime::stream_buffer<Key> device;
  device.allocate(budget_keys, opt.stream, allocation_failed);
  gpu_backend<Key> backend{moves, device.get(), budget_keys, opt};
  if (backend.piece_keys() == 0) {
    throw error(std::string(caller) + ": too little device memory for the out-of-core merge (" +
                std::to_string(budget_keys * sizeof(Key)) + " bytes)");
  }
  api::with_order(opt.direction,
                  [&](auto less) { sort_out_of_core(h_keys, n, scratch.get(), less, backend); });
}

}  // namespace
}  // namespace host

template <class Key>
void sort_host(Key* h_keys, std::size_t n, const options& opt) {
  api::validate(opt, host::caller);
  api::require_host_keys(h_keys, n, host::caller);
  if (n == 0) return;
  if (!gpu_available()) {
    sort_on_cpu(h_keys, n, opt);
    return;
  }
  if (std::is_floating_point_v<Key> && opt.stable) {  // equivalent floats can differ in bits
    if (!host::sort_whole_on_device(h_keys, n, opt, host::allocation_failed)) {
      sort_on_cpu(h_keys, n, opt);
    }
    return;
  }
  host::sort_host_on_gpu(h_keys, n, opt);
}

#define BITONIC_INSTANTIATE(Key) template void sort_host<Key>(Key*, std::size_t, const options&);
BITONIC_FOR_EACH_KEY(BITONIC_INSTANTIATE)
#undef BITONIC_INSTANTIATE

}  // namespace bitonic
