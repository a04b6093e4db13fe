// The library's own stream-ordered memory pool, one per device, for scratch that a call allocates
// itself: it keeps what is freed into it (no release threshold), so that repeated sorts do not map
// and unmap their scratch on every call, as the device's default pool does unless the application
// raised its threshold (docs/PERFORMANCE.md log 35). The default pool belongs to the
// application and is left as it is.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace bitonic::runtime {

//! The library's pool on the current device, created on first use.
cudaMemPool_t library_pool();

//! Gives back what the current device's library pool holds unused (after the host has seen the
//! frees complete); does nothing without a pool.
void trim_library_pool();

}  // namespace bitonic::runtime
