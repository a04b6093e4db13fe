// Clocks for the benchmark: CUDA events for device-resident work, the host's steady clock for
// work that includes transfers or runs on the CPU; the median summarises repeated runs.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "bitonic/cuda_helpers.hpp"

namespace bitonic::bench {

//! The median of `samples` (the mean of the middle two for an even count); 0 when empty.
inline double median(std::vector<double> samples) {
  if (samples.empty()) return 0.0;
  const std::size_t mid = samples.size() / 2;
  std::nth_element(samples.begin(), samples.begin() + mid, samples.end());
  if (samples.size() % 2 == 1) return samples[mid];
  const double upper = samples[mid];
  return (upper + *std::max_element(samples.begin(), samples.begin() + mid)) / 2;
}

class host_timer {
 public:
  host_timer() : start_(std::chrono::steady_clock::now()) {}
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

//! Device time of the work enqueued on a stream between start() and stop().
class event_timer {
 public:
  void start(cudaStream_t s) { BITONIC_CUDA_CHECK(cudaEventRecord(start_, s)); }
  //! Waits for the work and returns its duration in milliseconds.
  double stop(cudaStream_t s) {
    BITONIC_CUDA_CHECK(cudaEventRecord(stop_, s));
    BITONIC_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    BITONIC_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cuda_event start_, stop_;
};

}  // namespace bitonic::bench
