// A value worked out once per CUDA device and read without a lock afterwards: the sort's host
// path asks for the device's limits and plan shape on every call, and a mutex and a map lookup
// per question was a measurable part of a small sort (docs/PERFORMANCE.md log 33).
#pragma once

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>

#include "bitonic/cuda_helpers.hpp"

namespace bitonic::runtime {

template <class T>
class per_device {
 public:
  //! The value for the current device: make() on its first request, the stored one after.
  //! make() must not ask this same object (it runs under its lock).
  template <class Make>
  const T& get(Make make) {
    int device = 0;
    BITONIC_CUDA_CHECK(cudaGetDevice(&device));
    const bool fast = device >= 0 && device < int(fast_devices);
    if (fast) {
      if (const T* known = fast_[std::size_t(device)].load(std::memory_order_acquire)) {
        return *known;
      }
    }
    const std::lock_guard lock(mutex_);
    std::unique_ptr<const T>& slot = all_[device];
    if (!slot) slot = std::make_unique<const T>(make());
    if (fast) fast_[std::size_t(device)].store(slot.get(), std::memory_order_release);
    return *slot;
  }

  //! The value for the current device if it has been made, else null.
  const T* find() {
    int device = 0;
    BITONIC_CUDA_CHECK(cudaGetDevice(&device));
    const std::lock_guard lock(mutex_);
    const auto found = all_.find(device);
    return found == all_.end() ? nullptr : found->second.get();
  }

  //! Calls fn(device, value) for every value made so far, in device order, under the lock (fn
  //! must not ask this same object).
  template <class Fn>
  void for_each(Fn fn) {
    const std::lock_guard lock(mutex_);
    for (const auto& [device, value] : all_)
      fn(device, *value);
  }

 private:
  static constexpr std::size_t fast_devices = 64;
  std::array<std::atomic<const T*>, fast_devices> fast_{};
  std::mutex mutex_;
  std::map<int, std::unique_ptr<const T>> all_;  // owns every value; never erased
};

}  // namespace bitonic::runtime
