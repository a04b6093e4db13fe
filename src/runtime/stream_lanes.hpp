// Side streams that let independent work of one call run beside the caller's stream, joined to it
// by events only (no host waits), so that a call stays asynchronous and can be captured into a
// CUDA graph.
#pragma once

#include <cuda_runtime_api.h>

#include <array>

namespace bitonic::runtime {

//! Lanes of work for one call on `caller`: lane 0 is the caller's stream, lanes 1..Lanes-1 are
//! side streams of this host thread and device (created on first use, kept for the thread's
//! life). fork() orders the side lanes after the work enqueued on `caller` so far; join() orders
//! `caller` after everything enqueued on them; the destructor joins if the caller did not (so an
//! exception between the two leaves no stream behind). One object per call; with one lane it is
//! the caller's stream alone and creates nothing.
class stream_lanes {
 public:
  static constexpr unsigned max_lanes = 4;

  stream_lanes(cudaStream_t caller, unsigned lanes);
  ~stream_lanes();
  stream_lanes(const stream_lanes&) = delete;
  stream_lanes& operator=(const stream_lanes&) = delete;

  //! The stream of `lane` (lane < lanes given to the constructor).
  cudaStream_t get(unsigned lane) const { return streams_[lane]; }
  void fork();
  void join();

 private:
  unsigned lanes_;
  bool forked_ = false;
  std::array<cudaStream_t, max_lanes> streams_{};
  std::array<cudaEvent_t, max_lanes> events_{};  //!< [0] forks, [i] joins lane i
};

}  // namespace bitonic::runtime
