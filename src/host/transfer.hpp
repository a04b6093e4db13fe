// Moving arrays between host and device memory through the staging ring (staging.hpp), and the
// device memory a host-to-host call may use: what sort_host and the record host forms share.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>

#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "host/staging.hpp"
#include "runtime/stream_buffer.hpp"

namespace bitonic::host {

//! Moves keys between host and device memory through the staging ring, on the ring's copy
//! stream, handing over to and from `compute` (the caller's stream) with events.
template <class Key>
class transfer {
 public:
  transfer(staging_ring& ring, cudaStream_t compute) : ring_(ring), compute_(compute) {}

  //! Enqueues the copy of h[0, n) to d; returns once the host side has been read. After each
  //! chunk, on_chunk(begin, count) may enqueue work on `compute` that needs the chunk's keys (the
  //! compute stream already waits for them); afterwards `compute` waits for all of them.
  template <class OnChunk>
  void upload(Key* d, const Key* h, std::size_t n, OnChunk on_chunk) {
    copies_follow_compute();  // d may have just been allocated on `compute` (stream-ordered)
    for (std::size_t c = 0; c < chunk_count(n); ++c) {
      const chunk ch = chunk_at(c, n);
      const cudaEvent_t landed = ring_.event(ch.buffer);
      BITONIC_CUDA_CHECK(cudaEventSynchronize(landed));  // the buffer's last DMA is done
      ring_.copier().copy(ring_.buffer(ch.buffer), h + ch.begin, ch.bytes);
      BITONIC_CUDA_CHECK(cudaMemcpyAsync(d + ch.begin, ring_.buffer(ch.buffer), ch.bytes,
                                         cudaMemcpyHostToDevice, ring_.copy_stream()));
      BITONIC_CUDA_CHECK(cudaEventRecord(landed, ring_.copy_stream()));
      BITONIC_CUDA_CHECK(cudaStreamWaitEvent(compute_, landed));
      on_chunk(ch.begin, ch.bytes / sizeof(Key));
    }
  }
  void upload(Key* d, const Key* h, std::size_t n) {
    upload(d, h, n, [](std::size_t, std::size_t) {});
  }

  //! Copies d[0, n) to h once the work enqueued on `compute` is done; returns when h holds them.
  void download(Key* h, const Key* d, std::size_t n) {
    copies_follow_compute();
    const std::size_t chunks = chunk_count(n);
    const auto enqueue = [&](std::size_t c) {
      const chunk ch = chunk_at(c, n);
      BITONIC_CUDA_CHECK(cudaMemcpyAsync(ring_.buffer(ch.buffer), d + ch.begin, ch.bytes,
                                         cudaMemcpyDeviceToHost, ring_.copy_stream()));
      BITONIC_CUDA_CHECK(cudaEventRecord(ring_.event(ch.buffer), ring_.copy_stream()));
    };
    for (std::size_t c = 0; c < std::min<std::size_t>(chunks, staging_ring::buffer_count); ++c) {
      enqueue(c);
    }
    for (std::size_t c = 0; c < chunks; ++c) {
      const chunk ch = chunk_at(c, n);
      BITONIC_CUDA_CHECK(cudaEventSynchronize(ring_.event(ch.buffer)));
      ring_.copier().copy(h + ch.begin, ring_.buffer(ch.buffer), ch.bytes);
      if (c + staging_ring::buffer_count < chunks) enqueue(c + staging_ring::buffer_count);
    }
  }

  void host_copy(Key* dst, const Key* src, std::size_t n) {
    ring_.copier().copy(dst, src, n * sizeof(Key));
  }

  //! Keys per chunk: a power of two, so chunks are aligned blocks of the sorting network.
  static constexpr std::size_t chunk_keys = staging_ring::buffer_bytes / sizeof(Key);
  static_assert((chunk_keys & (chunk_keys - 1)) == 0, "chunks must be blocks of the network");

 private:
  //! Copies enqueued from now on start after the work enqueued on `compute` so far.
  void copies_follow_compute() {
    BITONIC_CUDA_CHECK(cudaEventRecord(ring_.handoff(), compute_));
    BITONIC_CUDA_CHECK(cudaStreamWaitEvent(ring_.copy_stream(), ring_.handoff()));
  }

  //! Chunk c of a transfer of n keys: the staging buffer it passes through and its key range.
  struct chunk {
    unsigned buffer;
    std::size_t begin, bytes;
  };
  static std::size_t chunk_count(std::size_t n) { return (n + chunk_keys - 1) / chunk_keys; }
  static chunk chunk_at(std::size_t c, std::size_t n) {
    const std::size_t begin = c * chunk_keys;
    return {unsigned(c % staging_ring::buffer_count), begin,
            std::min(chunk_keys, n - begin) * sizeof(Key)};
  }

  staging_ring& ring_;
  cudaStream_t compute_;
};

//! Device bytes the call may use: opt.max_device_bytes, at most what is free now less a margin
//! for the CUDA context and allocator granularity.
inline std::size_t device_budget(const options& opt) {
  std::size_t free_bytes = 0, total_bytes = 0;
  BITONIC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t margin = std::max<std::size_t>(std::size_t{256} << 20, free_bytes / 32);
  const std::size_t usable = free_bytes > margin ? free_bytes - margin : 0;
  return opt.max_device_bytes != 0 ? std::min(opt.max_device_bytes, usable) : usable;
}

//! The device form's options for a host entry point: opt's order, algorithm, stream and
//! stability, on a workspace of `bytes` bytes allocated for the call into `workspace` (none when
//! bytes is 0), freed with it. `caller` names a failed allocation.
inline options with_workspace(const options& opt, runtime::stream_buffer<std::byte>& workspace,
                              std::size_t bytes, const char* caller) {
  options on_device{.direction = opt.direction, .algo = opt.algo, .stream = opt.stream};
  on_device.stable = opt.stable;
  if (bytes != 0) {
    workspace.allocate(bytes, opt.stream, caller);
    on_device.workspace = workspace.get();
    on_device.workspace_bytes = bytes;
  }
  return on_device;
}

//! Sorts h_keys[0, n) with bitonic::sort (opt's direction, algorithm, stream and stable) when the
//! keys and that sort's scratch (workspace_bytes) fit device_budget(opt): uploaded whole through
//! the staging ring, sorted, downloaded, the device memory freed with the call. False, having done
//! nothing, when they do not fit. `allocation_failed` names a failed allocation in its error.
template <class Key>
bool sort_whole_on_device(Key* h_keys, std::size_t n, const options& opt,
                          const char* allocation_failed) {
  const std::size_t scratch_bytes = workspace_bytes<Key>(n, opt);  // reads order, algo, stable
  if (n * sizeof(Key) + scratch_bytes > device_budget(opt)) return false;
  staging_lease ring;
  transfer<Key> moves(*ring, opt.stream);
  runtime::stream_buffer<Key> device;
  device.allocate(n, opt.stream, allocation_failed);
  runtime::stream_buffer<std::byte> scratch;
  const options on_device = with_workspace(opt, scratch, scratch_bytes, allocation_failed);
  moves.upload(device.get(), h_keys, n);
  bitonic::sort(device.get(), n, on_device);
  moves.download(h_keys, device.get(), n);
  return true;
}

}  // namespace bitonic::host
