#include "runtime/kernel_loading.hpp"

#include <cuda_runtime_api.h>

#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "bitonic/cuda_helpers.hpp"

namespace bitonic::runtime {

void ensure_loaded(const void* kernel, const char* what) {
  static std::mutex mutex;
  static std::set<std::pair<int, const void*>> loaded;
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  const std::lock_guard lock(mutex);
  if (loaded.contains({device, kernel})) return;
  cudaFuncAttributes attributes{};
  const cudaError_t status = cudaFuncGetAttributes(&attributes, kernel);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    throw error(std::string("bitonic: no device memory left to load a kernel (") + what +
                "); CUDA loads kernels on first use. Free device memory before the first sort, "
                "or load every kernel at start-up with CUDA_MODULE_LOADING=EAGER. No key was "
                "touched.");
  }
  check_cuda(status, what);
  loaded.insert({device, kernel});
}

}  // namespace bitonic::runtime
