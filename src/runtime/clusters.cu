// How many blocks the current device places in one thread-block cluster: clusters must fit the
// multiprocessors of one GPC, which no device attribute states, so the runtime is asked with an
// empty probe kernel of the same block shape.
#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <tuple>

#include "bitonic/cuda_helpers.hpp"
#include "runtime/device.hpp"
#include "runtime/kernel_loading.hpp"

namespace bitonic::runtime {
namespace {
__global__ void cluster_probe() {}
}  // namespace

unsigned cluster_blocks_max(unsigned threads, std::size_t smem_bytes) {
  if (!launches_clusters() || smem_bytes > shared_memory_per_block_optin()) return 0;
  int device = 0;
  BITONIC_CUDA_CHECK(cudaGetDevice(&device));
  static std::mutex mutex;
  static std::map<std::tuple<int, unsigned, std::size_t>, unsigned> known;
  const std::lock_guard lock(mutex);
  const auto key = std::make_tuple(device, threads, smem_bytes);
  if (const auto it = known.find(key); it != known.end()) return it->second;
  ensure_loaded(reinterpret_cast<const void*>(cluster_probe), "the cluster size probe");
  BITONIC_CUDA_CHECK(cudaFuncSetAttribute(
      cluster_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem_bytes)));
  BITONIC_CUDA_CHECK(
      cudaFuncSetAttribute(cluster_probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(1);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = smem_bytes;
  int blocks = 0;
  BITONIC_CUDA_CHECK(cudaOccupancyMaxPotentialClusterSize(&blocks, cluster_probe, &config));
  return known[key] = unsigned(blocks);
}

}  // namespace bitonic::runtime
