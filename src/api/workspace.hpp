// Scratch memory of a call: the caller's workspace (options.workspace, checked) or an allocation
// from the library's own pool, shared by the key sort and the record sorts.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <initializer_list>

#include "bitonic/bitonic.hpp"
#include "runtime/stream_buffer.hpp"

namespace bitonic::api {

//! Scratch is aligned to this many bytes within a caller's workspace (vector loads, coalescing);
//! a call asks for that much more than it uses.
inline constexpr std::size_t workspace_alignment = 256;

//! `bytes` rounded up to a multiple of workspace_alignment: where the next part of a scratch
//! buffer laid out in parts begins.
constexpr std::size_t align_up(std::size_t bytes) {
  return (bytes + workspace_alignment - 1) & ~(workspace_alignment - 1);
}

//! The options of a call made on part of a caller's scratch (the word sorts of small keys): the
//! caller's algorithm, order, stability and stream, the workspace `bytes` at `at` (none, so the
//! library's pool, when bytes is 0).
inline options on_scratch(const options& opt, std::byte* at = nullptr, std::size_t bytes = 0) {
  options inner;
  inner.algo = opt.algo;
  inner.direction = opt.direction;
  inner.stable = opt.stable;
  inner.stream = opt.stream;
  if (bytes != 0) {
    inner.workspace = at;
    inner.workspace_bytes = bytes;
  }
  return inner;
}

//! A range of the caller's device memory that the workspace must not overlap.
struct device_range {
  const void* begin = nullptr;
  std::size_t bytes = 0;
  const char* name = "";
};

//! Whether opt names a workspace (pointer or size set).
inline bool has_workspace(const options& opt) {
  return opt.workspace != nullptr || opt.workspace_bytes != 0;
}

//! opt.workspace for a call that needs `needed` bytes (alignment slack included), checked: large
//! enough, device memory of the current device, apart from every range of `apart`. Returns its
//! first address aligned to workspace_alignment. Throws bitonic::error naming `caller`, the bytes
//! needed and `sizing`, the function that tells them.
std::byte* caller_workspace(const options& opt, std::size_t needed,
                            std::initializer_list<device_range> apart, const char* caller,
                            const char* sizing);

//! Allocates `bytes` stream-ordered on `stream` from the library's pool (a graph allocation while
//! the stream is being captured), trimming the pool and trying again once if that fails. Returns
//! false, nothing allocated, when the device lacks the memory; throws on other CUDA errors.
bool allocate_scratch(runtime::stream_buffer<std::byte>& owned, std::size_t bytes,
                      cudaStream_t stream, const char* what);

//! `needed` bytes of scratch (alignment slack included) for a call that has no fallback without
//! it: the caller's workspace, checked as caller_workspace does, or else an allocation from the
//! library's pool held by `owned`. Returns its first address aligned to workspace_alignment.
//! Throws bitonic::error naming `caller` when the workspace is unfit or the device lacks the
//! memory (before anything touches the caller's data).
std::byte* workspace_or_pool(const options& opt, std::size_t needed,
                             std::initializer_list<device_range> apart,
                             runtime::stream_buffer<std::byte>& owned, const char* caller,
                             const char* sizing);

}  // namespace bitonic::api
