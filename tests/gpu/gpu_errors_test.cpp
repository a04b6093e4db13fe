// Every error bitonic::sort reports before it touches the keys: the message must name the
// problem, and the keys (host or device) must be as they were.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "common_test.hpp"
#include "device_memory.hpp"

namespace bitonic {
namespace {

using test::device_array;
using test::matches_reference;
using test::throws_error;
using tools::distribution;

std::vector<std::int32_t> descending_keys(std::size_t n) {
  std::vector<std::int32_t> keys(n);
  std::iota(keys.rbegin(), keys.rend(), 0);
  return keys;
}

TEST(GpuErrors, NullPointerWithPositiveLength) {
  EXPECT_TRUE(throws_error([] { sort<std::int32_t>(nullptr, 10); }, "null"));
  EXPECT_NO_THROW(sort<std::int32_t>(nullptr, 0));
}

TEST(GpuErrors, HostVector) {
  const std::vector<std::int32_t> original = descending_keys(100);
  std::vector<std::int32_t> keys = original;
  EXPECT_TRUE(throws_error([&] { sort(keys.data(), keys.size()); }, "host pointer"));
  EXPECT_EQ(keys, original);
}

TEST(GpuErrors, PinnedHostMemory) {
  constexpr std::size_t n = 100;
  const std::vector<std::int32_t> original = descending_keys(n);
  std::int32_t* pinned = nullptr;
  BITONIC_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&pinned), n * sizeof(std::int32_t)));
  std::copy(original.begin(), original.end(), pinned);
  EXPECT_TRUE(throws_error([&] { sort(pinned, n); }, "host pointer"));
  EXPECT_EQ(std::vector<std::int32_t>(pinned, pinned + n), original);
  BITONIC_CUDA_CHECK(cudaFreeHost(pinned));
}

TEST(GpuErrors, RangePastTheEndOfTheAllocation) {
  const std::vector<std::int32_t> original = descending_keys(100);
  device_array<std::int32_t> keys(100);
  keys.upload(original);
  EXPECT_TRUE(throws_error([&] { sort(keys.get(), 200); }, "past the end"));
  EXPECT_TRUE(throws_error([&] { sort(keys.get() + 50, 51); }, "past the end"));
  EXPECT_EQ(keys.download(), original);

  // A range that ends exactly at the end of the allocation is fine.
  sort(keys.get() + 50, 50);
  std::vector<std::int32_t> expected = original;
  std::sort(expected.begin() + 50, expected.end());
  EXPECT_EQ(keys.download(), expected);
}

TEST(GpuErrors, MisalignedPointer) {
  const std::vector<std::int32_t> original = descending_keys(100);
  device_array<std::int32_t> keys(100);
  keys.upload(original);
  auto* misaligned = reinterpret_cast<std::int32_t*>(reinterpret_cast<char*>(keys.get()) + 1);
  EXPECT_TRUE(throws_error([&] { sort(misaligned, 10); }, "not aligned"));
  // 4-byte aligned is not enough for 8-byte keys.
  auto* half_aligned = reinterpret_cast<double*>(keys.get() + 1);
  EXPECT_TRUE(throws_error([&] { sort(half_aligned, 10); }, "not aligned"));
  EXPECT_EQ(keys.download(), original);
}

TEST(GpuErrors, InvalidEnumValues) {
  const std::vector<std::int32_t> original = descending_keys(100);
  device_array<std::int32_t> keys(100);
  keys.upload(original);
  EXPECT_TRUE(throws_error(
      [&] {
        sort(keys.get(), 100, {static_cast<order>(7), algorithm::automatic, nullptr});
      },
      "order"));
  EXPECT_TRUE(throws_error(
      [&] {
        sort(keys.get(), 100, {order::ascending, static_cast<algorithm>(99), nullptr});
      },
      "algorithm"));
  EXPECT_EQ(keys.download(), original);
}

// Takes all the device memory it can, in chunks, except about `leave_bytes`; frees it when
// destroyed.
class memory_hog {
 public:
  explicit memory_hog(std::size_t leave_bytes) {
    constexpr std::size_t min_chunk = std::size_t{2} << 20;  // cudaMalloc's granularity
    for (std::size_t chunk = std::size_t{1} << 30; chunk >= min_chunk;) {
      std::size_t free_bytes = 0, total_bytes = 0;
      BITONIC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
      if (free_bytes < leave_bytes + min_chunk) break;
      void* block = nullptr;
      if (cudaMalloc(&block, std::min(chunk, free_bytes - leave_bytes)) == cudaSuccess) {
        blocks_.push_back(block);
      } else {
        cudaGetLastError();  // not sticky, but leave nothing behind for the code under test
        chunk /= 2;
      }
    }
  }
  memory_hog(const memory_hog&) = delete;
  memory_hog& operator=(const memory_hog&) = delete;
  ~memory_hog() {
    for (void* block : blocks_)
      cudaFree(block);
  }

 private:
  std::vector<void*> blocks_;
};

TEST(GpuErrors, BlockMergeScratchAllocationFailure) {
  using Key = std::int32_t;
  constexpr std::size_t n = std::size_t{1} << 23;  // 32 MiB of keys, and as much scratch
  const std::uint64_t seed = test::case_seed(n, distribution::uniform);
  const std::vector<Key> input = tools::generate<Key>(n, distribution::uniform, seed);
  const std::vector<Key> expected = tools::reference_sort(input, order::ascending);
  device_array<Key> keys(n);
  // The first launch of a kernel loads its module, which needs device memory: launch the kernels
  // of every in-place variant once while there is memory.
  for (const algorithm algo : test::all_algorithms) {
    if (algo != algorithm::block_merge) test::sort_on_device(keys, input, {order::ascending, algo});
  }
  keys.upload(input);
  // Hand the library pool's cached scratch back, so that the allocation needs fresh memory.
  release_cached_memory();
  {
    const memory_hog hog(std::size_t{20} << 20);  // less than the 32 MiB of scratch
    EXPECT_TRUE(throws_error(
        [&] {
          sort(keys.get(), n, {order::ascending, algorithm::block_merge});
        },
        {"block_merge", "scratch", "out of memory"}));
    EXPECT_EQ(keys.download(), input) << "keys changed by a sort that failed";
    // automatic must sort without the scratch memory: optimized falls back to its in-place plan.
    sort(keys.get(), n, {order::ascending, algorithm::automatic});
    EXPECT_TRUE(matches_reference(keys.download(), expected)) << "automatic, memory exhausted";
  }
  // With the memory back, block_merge works: the failure left no sticky error behind.
  EXPECT_TRUE(matches_reference(
      test::sort_on_device(keys, input, {order::ascending, algorithm::block_merge}), expected));
}

}  // namespace
}  // namespace bitonic
