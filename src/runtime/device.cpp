#include "runtime/device.hpp"

#include <cuda.h>  // types of the driver API only; the function is looked up at run time
#include <cuda_runtime_api.h>

#include <cstdint>
#include <limits>
#include <string>

#include "bitonic/cuda_helpers.hpp"
#include "runtime/per_device.hpp"

namespace bitonic {

bool gpu_available() noexcept {
  int count = 0;
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  if (!ok) cudaGetLastError();  // leave no sticky status behind for the caller
  return ok;
}

namespace runtime {
namespace {

using address_range_fn = CUresult (*)(CUdeviceptr*, std::size_t*, CUdeviceptr);

// cuMemGetAddressRange, resolved through the runtime so that nothing links libcuda directly (the
// binaries must start on machines without a driver). Null when the driver does not offer it.
address_range_fn address_range_query() {
  static const address_range_fn fn = [] {
    void* symbol = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &symbol, CUDA_VERSION,
                                         cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      return address_range_fn{};
    }
    return reinterpret_cast<address_range_fn>(symbol);
  }();
  return fn;
}

[[noreturn]] void fail(const char* caller, const std::string& why) {
  throw error(std::string(caller) + ": " + why);
}

}  // namespace

void require_device_range(const void* keys, std::size_t n, std::size_t key_bytes,
                          std::size_t key_align, const char* caller, const char* name) {
  const std::string what(name);
  if (n == 0) return;
  if (keys == nullptr) fail(caller, what + " is null but n = " + std::to_string(n));
  if (n > std::numeric_limits<std::size_t>::max() / key_bytes) {
    fail(caller, "n = " + std::to_string(n) + " keys overflow the address space");
  }
  if (reinterpret_cast<std::uintptr_t>(keys) % key_align != 0) {
    fail(caller,
         what + " is not aligned to its key type (" + std::to_string(key_align) + " bytes)");
  }
  int device_count = 0;
  if (const cudaError_t status = cudaGetDeviceCount(&device_count);
      status != cudaSuccess || device_count == 0) {
    cudaGetLastError();
    fail(caller, std::string("no CUDA device (") +
                     (status == cudaSuccess ? "none found" : cudaGetErrorString(status)) + ")");
  }
  int current = 0;
  BITONIC_CUDA_CHECK(cudaGetDevice(&current));
  cudaPointerAttributes attributes{};
  BITONIC_CUDA_CHECK(cudaPointerGetAttributes(&attributes, keys));
  switch (attributes.type) {
    case cudaMemoryTypeUnregistered:
    case cudaMemoryTypeHost:
      fail(caller,
           what +
               " is a host pointer; device or managed memory is needed (copy the keys to the "
               "device first, or use sort_on_cpu)");
    case cudaMemoryTypeDevice:
      if (attributes.device != current) {
        fail(caller, what + " lives on device " + std::to_string(attributes.device) +
                         " but the current device is " + std::to_string(current));
      }
      break;
    case cudaMemoryTypeManaged:
      break;
  }
  if (const address_range_fn query = address_range_query()) {
    CUdeviceptr base = 0;
    std::size_t size = 0;
    const auto address = reinterpret_cast<CUdeviceptr>(keys);
    if (query(&base, &size, address) == CUDA_SUCCESS) {
      const std::size_t available = base + size - address;
      if (n * key_bytes > available) {
        fail(caller, what + " + n runs past the end of its allocation (" +
                         std::to_string(n * key_bytes) + " bytes needed, " +
                         std::to_string(available) + " available)");
      }
    }
  }
}

namespace {
//! The current device's attributes that the sort consults, read once per device.
struct device_properties {
  std::size_t smem_per_block_optin, smem_per_multiprocessor, l2_bytes;
  unsigned multiprocessors;
  bool clusters, cooperative, chains;
};

const device_properties& properties() {
  static per_device<device_properties> known;
  return known.get([] {
    int device = 0;
    BITONIC_CUDA_CHECK(cudaGetDevice(&device));
    const auto read = [&](cudaDeviceAttr attribute) {
      int value = 0;
      BITONIC_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
      return value;
    };
    return device_properties{std::size_t(read(cudaDevAttrMaxSharedMemoryPerBlockOptin)),
                             std::size_t(read(cudaDevAttrMaxSharedMemoryPerMultiprocessor)),
                             std::size_t(read(cudaDevAttrL2CacheSize)),
                             unsigned(read(cudaDevAttrMultiProcessorCount)),
                             read(cudaDevAttrClusterLaunch) != 0,
                             read(cudaDevAttrCooperativeLaunch) != 0,
                             read(cudaDevAttrComputeCapabilityMajor) >= 9};
  });
}
}  // namespace

std::size_t shared_memory_per_block_optin() {
  return properties().smem_per_block_optin;
}

std::size_t shared_memory_per_multiprocessor() {
  return properties().smem_per_multiprocessor;
}

bool launches_clusters() {
  return properties().clusters;
}

bool launches_cooperative() {
  return properties().cooperative;
}

std::size_t one_block_per_multiprocessor_smem() {
  return shared_memory_per_multiprocessor() / 2 + 1024;
}

std::size_t l2_cache_bytes() {
  return properties().l2_bytes;
}

unsigned multiprocessor_count() {
  return properties().multiprocessors;
}

bool chains_launches() {
  return properties().chains;
}

}  // namespace runtime
}  // namespace bitonic
