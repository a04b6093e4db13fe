// Host side of the transfers of sort_host: a few pinned staging buffers that pageable keys pass
// through (the DMA engines need pinned memory to overlap with anything), and a pool of threads
// that copies between pageable and pinned memory (one thread copies far slower than PCIe moves).
#pragma once

#include <cuda_runtime_api.h>

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace bitonic::host {

//! Copies host memory with several threads; copy() returns when every byte is copied.
class copy_pool {
 public:
  explicit copy_pool(unsigned threads);
  ~copy_pool();
  copy_pool(const copy_pool&) = delete;
  copy_pool& operator=(const copy_pool&) = delete;

  void copy(void* dst, const void* src, std::size_t bytes);

 private:
  void work(unsigned index);
  void copy_slice(unsigned index);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::size_t generation_ = 0;
  unsigned pending_ = 0;
  bool stopping_ = false;
  char* dst_ = nullptr;
  const char* src_ = nullptr;
  std::size_t bytes_ = 0;
};

//! Pinned buffers, each with an event that marks the end of the last transfer that used it.
class staging_ring {
 public:
  static constexpr std::size_t buffer_bytes = std::size_t{16} << 20;
  static constexpr unsigned buffer_count = 4;

  staging_ring();  //!< throws bitonic::error when pinned memory or events cannot be had
  ~staging_ring();
  staging_ring(const staging_ring&) = delete;
  staging_ring& operator=(const staging_ring&) = delete;

  int device() const { return device_; }  //!< its events belong to this device
  void* buffer(unsigned i) const { return buffers_[i]; }
  cudaEvent_t event(unsigned i) const { return events_[i]; }
  copy_pool& copier() { return copier_; }
  //! A stream of its own for the transfers, so that they overlap the sort's kernels, and an
  //! event to hand work over between that stream and the caller's.
  cudaStream_t copy_stream() const { return copy_stream_; }
  cudaEvent_t handoff() const { return handoff_; }

 private:
  void release();

  int device_ = 0;
  void* buffers_[buffer_count] = {};
  cudaEvent_t events_[buffer_count] = {};
  cudaStream_t copy_stream_ = nullptr;
  cudaEvent_t handoff_ = nullptr;
  copy_pool copier_;
};

//! A staging ring of the current device for the duration of one sort_host call. A ring is kept for
//! later calls (pinning 64 MiB costs milliseconds); concurrent calls each get their own.
class staging_lease {
 public:
  staging_lease();
  ~staging_lease();
  staging_lease(const staging_lease&) = delete;
  staging_lease& operator=(const staging_lease&) = delete;
  staging_ring& operator*() const { return *ring_; }
  staging_ring* operator->() const { return ring_.get(); }

 private:
  std::unique_ptr<staging_ring> ring_;
};

}  // namespace bitonic::host
