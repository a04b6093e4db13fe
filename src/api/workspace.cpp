#include "api/workspace.hpp"

#include <cstdint>
#include <string>

#include "bitonic/cuda_helpers.hpp"
#include "runtime/device.hpp"
#include "runtime/memory_pool.hpp"

namespace bitonic::api {

std::byte* caller_workspace(const options& opt, std::size_t needed,
                            std::initializer_list<device_range> apart, const char* caller,
                            const char* sizing) {
  if (opt.workspace_bytes < needed) {
    throw error(std::string(caller) + ": options.workspace_bytes is " +
                std::to_string(opt.workspace_bytes) + " but this call needs " +
                std::to_string(needed) + " bytes of workspace (" + sizing + ")");
  }
  runtime::require_device_range(opt.workspace, opt.workspace_bytes, 1, 1, caller,
                                "options.workspace");
  const auto begin = reinterpret_cast<std::uintptr_t>(opt.workspace);
  for (const device_range& r : apart) {
    const auto other = reinterpret_cast<std::uintptr_t>(r.begin);
    if (r.bytes != 0 && begin < other + r.bytes && other < begin + opt.workspace_bytes) {
      throw error(std::string(caller) + ": options.workspace overlaps " + r.name);
    }
  }
  return reinterpret_cast<std::byte*>(align_up(begin));
}

bool allocate_scratch(runtime::stream_buffer<std::byte>& owned, std::size_t bytes,
                      cudaStream_t stream, const char* what) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  BITONIC_CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
  const cudaMemPool_t pool =
      capture == cudaStreamCaptureStatusNone ? runtime::library_pool() : nullptr;
  if (owned.try_allocate(bytes, stream, what, pool)) return true;
  if (pool == nullptr) return false;
  runtime::trim_library_pool();  // what the pool keeps may be in smaller pieces: give it back
  return owned.try_allocate(bytes, stream, what, pool);
}

std::byte* workspace_or_pool(const options& opt, std::size_t needed,
                             std::initializer_list<device_range> apart,
                             runtime::stream_buffer<std::byte>& owned, const char* caller,
                             const char* sizing) {
  if (has_workspace(opt)) return caller_workspace(opt, needed, apart, caller, sizing);
  const std::string what = std::string(caller) + ": scratch cudaMallocFromPoolAsync";
  if (!allocate_scratch(owned, needed, opt.stream, what.c_str())) {
    throw error(std::string(caller) + ": out of device memory for a scratch buffer of " +
                std::to_string(needed) + " bytes");
  }
  return reinterpret_cast<std::byte*>(align_up(reinterpret_cast<std::uintptr_t>(owned.get())));
}

}  // namespace bitonic::api
