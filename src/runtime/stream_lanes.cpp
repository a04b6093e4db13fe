#include "runtime/stream_lanes.hpp"

#include <map>
#include <string>

#include "bitonic/cuda_helpers.hpp"

namespace bitonic::runtime {
namespace {

// One set per host thread and device: events are re-recorded by every call, and a call's record
// and wait happen on its own thread in order, so no other thread can re-record them in between.
// Streams and events are created when a call first needs them, and only as many as it needs.
struct thread_lanes {
  std::array<cudaStream_t, stream_lanes::max_lanes> streams{};  // [0] unused: the caller's
  std::array<cudaEvent_t, stream_lanes::max_lanes> events{};

  thread_lanes() = default;
  ~thread_lanes() {  // pending work completes first; errors at process exit are of no use
    for (unsigned i = 0; i < stream_lanes::max_lanes; ++i) {
      if (streams[i] != nullptr) cudaStreamDestroy(streams[i]);
      if (events[i] != nullptr) cudaEventDestroy(events[i]);
    }
  }
  thread_lanes(const thread_lanes&) = delete;
  thread_lanes& operator=(const thread_lanes&) = delete;

  void provide(unsigned lanes) {
    for (unsigned i = 0; i < lanes; ++i) {
      if (events[i] == nullptr) {
        BITONIC_CUDA_CHECK(cudaEventCreateWithFlags(&events[i], cudaEventDisableTiming));
      }
      // Non-blocking: no implicit ordering with the legacy default stream; the events order them.
      if (i > 0 && streams[i] == nullptr) {
        BITONIC_CUDA_CHECK(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
      }
    }
  }
};

thread_lanes& lanes_of_this_thread() {
  thread_local std::map<int, thread_lanes> per_device;
  int device = 0;
  BITONIC_CUDA_CHECK(cudaGetDevice(&device));
  return per_device.try_emplace(device).first->second;
}

}  // namespace

stream_lanes::stream_lanes(cudaStream_t caller, unsigned lanes) : lanes_(lanes) {
  if (lanes < 1 || lanes > max_lanes) {
    throw error("bitonic: internal error: " + std::to_string(lanes) + " stream lanes");
  }
  if (lanes > 1) {  // a single lane is the caller's stream alone: nothing to create
    thread_lanes& own = lanes_of_this_thread();
    own.provide(lanes);
    streams_ = own.streams;
    events_ = own.events;
  }
  streams_[0] = caller;
}

stream_lanes::~stream_lanes() {
  try {
    join();
  } catch (const error&) {  // already unwinding from the error that skipped the join
  }
}

void stream_lanes::fork() {
  if (forked_ || lanes_ == 1) return;
  BITONIC_CUDA_CHECK(cudaEventRecord(events_[0], streams_[0]));
  for (unsigned i = 1; i < lanes_; ++i) {
    BITONIC_CUDA_CHECK(cudaStreamWaitEvent(streams_[i], events_[0], 0));
  }
  forked_ = true;
}

void stream_lanes::join() {
  if (!forked_) return;
  forked_ = false;
  for (unsigned i = 1; i < lanes_; ++i) {
    BITONIC_CUDA_CHECK(cudaEventRecord(events_[i], streams_[i]));
    BITONIC_CUDA_CHECK(cudaStreamWaitEvent(streams_[0], events_[i], 0));
  }
}

}  // namespace bitonic::runtime
