// CUDA loads a kernel's module on the kernel's first use (lazy loading, the default since CUDA
// 12), which needs device memory: a sort whose second pass found the device full would fail after
// its first pass had reordered the keys. So a call loads every kernel it will launch before the
// first launch.
#pragma once

namespace bitonic::runtime {

//! Makes sure `kernel` (a __global__ function's address) is loaded on the current device; cheap
//! after the first time for a kernel and device. Throws bitonic::error naming `what`, with advice
//! when the device has no memory for it.
void ensure_loaded(const void* kernel, const char* what);

}  // namespace bitonic::runtime
