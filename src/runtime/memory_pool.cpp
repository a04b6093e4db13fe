#include "runtime/memory_pool.hpp"

#include <cstdint>

#include "bitonic/cuda_helpers.hpp"
#include "runtime/per_device.hpp"

namespace bitonic {
namespace runtime {
namespace {

per_device<cudaMemPool_t>& pools() {
  static per_device<cudaMemPool_t> all;
  return all;
}

cudaMemPool_t make_pool() {
  int device = 0;
  BITONIC_CUDA_CHECK(cudaGetDevice(&device));
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  BITONIC_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
  std::uint64_t keep_everything = ~std::uint64_t{0};
  BITONIC_CUDA_CHECK(
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
  return pool;
}

}  // namespace

cudaMemPool_t library_pool() {
  return pools().get(make_pool);
}

void trim_library_pool() {
  if (const cudaMemPool_t* pool = pools().find()) {
    BITONIC_CUDA_CHECK(cudaMemPoolTrimTo(*pool, 0));
  }
}

}  // namespace runtime

void release_cached_memory() {
  int current = -1;
  runtime::pools().for_each([&](int device, cudaMemPool_t pool) {
    if (current < 0) {
      check_cuda(cudaGetDevice(&current), "bitonic::release_cached_memory: cudaGetDevice");
    }
    check_cuda(cudaSetDevice(device), "bitonic::release_cached_memory: cudaSetDevice");
    const cudaError_t synced = cudaDeviceSynchronize();
    const cudaError_t trimmed = synced == cudaSuccess ? cudaMemPoolTrimTo(pool, 0) : synced;
    cudaSetDevice(current);  // the caller's device again, whatever failed
    check_cuda(trimmed, "bitonic::release_cached_memory: cudaDeviceSynchronize/TrimTo");
  });
}

std::size_t cached_memory_bytes() {
  if (!gpu_available()) return 0;
  const cudaMemPool_t* pool = runtime::pools().find();
  if (pool == nullptr) return 0;
  std::uint64_t reserved = 0;
  check_cuda(cudaMemPoolGetAttribute(*pool, cudaMemPoolAttrReservedMemCurrent, &reserved),
             "bitonic::cached_memory_bytes: cudaMemPoolGetAttribute");
  return std::size_t(reserved);
}

}  // namespace bitonic
