#include "host/staging.hpp"

#include <algorithm>
#include <cstring>

#include "bitonic/cuda_helpers.hpp"

namespace bitonic::host {

copy_pool::copy_pool(unsigned threads) {
  for (unsigned i = 1; i < threads; ++i)
    workers_.emplace_back([this, i] { work(i); });
}

copy_pool::~copy_pool() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_)
    worker.join();
}

void copy_pool::copy_slice(unsigned index) {
  const std::size_t parts = workers_.size() + 1;
  const std::size_t begin = bytes_ * index / parts, end = bytes_ * (index + 1) / parts;
  std::memcpy(dst_ + begin, src_ + begin, end - begin);
}

void copy_pool::copy(void* dst, const void* src, std::size_t bytes) {
  constexpr std::size_t worth_splitting = std::size_t{1} << 20;
  if (workers_.empty() || bytes < worth_splitting) {
    std::memcpy(dst, src, bytes);
    return;
  }
  {
    const std::lock_guard lock(mutex_);
    dst_ = static_cast<char*>(dst);
    src_ = static_cast<const char*>(src);
    bytes_ = bytes;
    pending_ = static_cast<unsigned>(workers_.size());
    ++generation_;
  }
  wake_.notify_all();
  copy_slice(0);
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return pending_ == 0; });
}

void copy_pool::work(unsigned index) {
  std::size_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    copy_slice(index);
    const std::lock_guard lock(mutex_);
    if (--pending_ == 0) done_.notify_one();
  }
}

// Host copies to and from pageable memory set the pace of sort_host (one thread copies several
// times slower than the PCIe link moves pinned memory), so the pool takes every core up to 16
// (docs/PERFORMANCE.md, "Figures behind the code").
staging_ring::staging_ring() : copier_(std::clamp(std::thread::hardware_concurrency(), 1u, 16u)) {
  try {
    BITONIC_CUDA_CHECK(cudaGetDevice(&device_));
    for (unsigned i = 0; i < buffer_count; ++i) {
      BITONIC_CUDA_CHECK(cudaMallocHost(&buffers_[i], buffer_bytes));
      BITONIC_CUDA_CHECK(cudaEventCreateWithFlags(&events_[i], cudaEventDisableTiming));
    }
    BITONIC_CUDA_CHECK(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking));
    BITONIC_CUDA_CHECK(cudaEventCreateWithFlags(&handoff_, cudaEventDisableTiming));
  } catch (...) {
    release();
    throw;
  }
}

staging_ring::~staging_ring() {
  release();
}

void staging_ring::release() {
  for (unsigned i = 0; i < buffer_count; ++i) {
    if (events_[i] != nullptr) cudaEventDestroy(events_[i]);
    if (buffers_[i] != nullptr) cudaFreeHost(buffers_[i]);
    events_[i] = nullptr;
    buffers_[i] = nullptr;
  }
  if (handoff_ != nullptr) cudaEventDestroy(handoff_);
  if (copy_stream_ != nullptr) cudaStreamDestroy(copy_stream_);
  handoff_ = nullptr;
  copy_stream_ = nullptr;
}

namespace {
std::mutex spare_mutex;
std::unique_ptr<staging_ring> spare;  // one ring kept between calls
}  // namespace

staging_lease::staging_lease() {
  int device = 0;
  BITONIC_CUDA_CHECK(cudaGetDevice(&device));
  {
    const std::lock_guard lock(spare_mutex);
    if (spare && spare->device() == device) ring_ = std::move(spare);
  }
  if (!ring_) ring_ = std::make_unique<staging_ring>();
}

staging_lease::~staging_lease() {
  const std::lock_guard lock(spare_mutex);
  spare = std::move(ring_);  // the most recent device's ring is the one worth keeping
}

}  // namespace bitonic::host
