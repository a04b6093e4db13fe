// Checks on the caller's device pointers before any work is enqueued, and device limits.
#pragma once

#include <cstddef>

namespace bitonic::runtime {

//! Throws bitonic::error unless [keys, keys + n * key_bytes) is usable by kernels on the current
//! device: not null, not host memory, on the current device, aligned, inside one allocation, and a
//! CUDA device exists. `caller` prefixes the message, `name` names the pointer. Does nothing for
//! n == 0.
void require_device_range(const void* keys, std::size_t n, std::size_t key_bytes,
                          std::size_t key_align, const char* caller, const char* name = "d_keys");

//! Shared memory one block of the current device may opt in to, in bytes (cached per device).
std::size_t shared_memory_per_block_optin();

//! Shared memory of one multiprocessor of the current device, in bytes (read once per device).
std::size_t shared_memory_per_multiprocessor();

//! Whether the current device launches thread-block clusters (compute capability 9.0 and up).
bool launches_clusters();

//! Dynamic shared memory that keeps a block alone on its multiprocessor (more than half of it).
std::size_t one_block_per_multiprocessor_smem();

//! The most blocks of `threads` threads and `smem_bytes` of dynamic shared memory the current
//! device places in one cluster (non-portable sizes allowed); 0 without clusters or when a block
//! cannot have that much shared memory. Read once per device and shape (clusters.cu).
unsigned cluster_blocks_max(unsigned threads, std::size_t smem_bytes);

//! Whether the current device launches cooperative kernels (all blocks resident at once; read
//! once per device).
bool launches_cooperative();

//! The current device's L2 cache size in bytes (read once per device).
std::size_t l2_cache_bytes();

//! The current device's multiprocessors (read once per device).
unsigned multiprocessor_count();

//! Whether the current device chains kernel launches in a stream (programmatic dependent launch:
//! compute capability 9.0 and up; read once per device).
bool chains_launches();

}  // namespace bitonic::runtime
