// The plans that sort() made lately, kept per device: planning a call takes ~1 us and walking its
// kernels to load them ~0.24 us a pass (docs/PERFORMANCE.md log 39), a tenth of a small sort's
// time, and both come before the first launch, so the GPU waits for them. A repeated call finds
// its plan made and its kernels loaded.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "bitonic/bitonic.hpp"
#include "plan/plan.hpp"

namespace bitonic::api {

//! One cached plan and which of its runs have had their kernels loaded (load_walks).
struct cached_plan {
  explicit cached_plan(plan::plan made) : plan(std::move(made)) {}
  const plan::plan plan;
  //! Bit load_walk(...) set once that run's kernels were loaded on the plan's device.
  std::atomic<unsigned> loaded{0};
};

//! The bit of cached_plan::loaded for a run of the plan: its kernels differ by order and by
//! whether the first pass reads a separate source.
constexpr unsigned load_walk(order direction, bool from_source) {
  return 1u << ((direction == order::descending ? 1 : 0) + (from_source ? 2 : 0));
}

//! Plans by (device, algorithm asked for, n), at most `capacity` at a time (all dropped when
//! full: callers hold their own reference). Thread-safe. One cache per key type, so that a plan's
//! loaded kernels are that type's. Kernels stay loaded and attributes set for the life of a
//! device's context, as the launch helpers' once_per_device assumes too.
class plan_cache {
 public:
  static constexpr std::size_t capacity = 64;

  //! The cached plan for (device, algo, n), made by make() where there is none (outside the
  //! lock: it may throw, and takes ~1 us).
  template <class Make>
  std::shared_ptr<cached_plan> get(int device, algorithm algo, std::size_t n, Make make) {
    if (auto found = find(device, algo, n)) return found;
    return insert(device, algo, n, make());
  }

  std::size_t size();

 private:
  std::shared_ptr<cached_plan> find(int device, algorithm algo, std::size_t n);
  std::shared_ptr<cached_plan> insert(int device, algorithm algo, std::size_t n, plan::plan made);

  std::mutex mutex_;
  std::map<std::tuple<int, algorithm, std::size_t>, std::shared_ptr<cached_plan>> plans_;
};

}  // namespace bitonic::api
