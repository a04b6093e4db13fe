// The two memory contracts of bitonic::sort: a caller's workspace (exactly workspace_bytes is
// enough, one byte less is an error that leaves the keys alone, nothing is allocated, a CUDA graph
// captures it), and the default call's scratch from the library's own pool, kept between calls and
// given back by release_cached_memory(), with the device's default pool left alone.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
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

//! The smallest of 2^k + 777 keys (k = 16..26) whose sort needs scratch on this device (past
//! one L2 block), so that the tests follow the device's cache size.
template <class Key>
std::size_t first_size_with_scratch() {
  for (unsigned k = 16; k <= 26; ++k) {
    const std::size_t n = (std::size_t{1} << k) + 777;
    if (workspace_bytes<Key>(n) != 0) return n;
  }
  return 0;
}

//! Bytes reserved by the device's default memory pool, and the most it ever had in use.
struct default_pool_use {
  std::uint64_t reserved = 0, used_high = 0;
  static default_pool_use now() {
    int device = 0;
    BITONIC_CUDA_CHECK(cudaGetDevice(&device));
    cudaMemPool_t pool = nullptr;
    BITONIC_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    default_pool_use use;
    BITONIC_CUDA_CHECK(
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &use.reserved));
    BITONIC_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &use.used_high));
    return use;
  }
};

//! A device byte buffer of cudaMalloc (outside every pool).
using device_bytes = device_buffer<std::byte>;

template <class Key>
class Workspace : public ::testing::Test {};
using workspace_key_types = ::testing::Types<std::int32_t, float, std::uint64_t, double>;
TYPED_TEST_SUITE(Workspace, workspace_key_types, test::key_type_names);

TYPED_TEST(Workspace, ZeroWherePlansWorkInPlace) {
  using Key = TypeParam;
  for (const std::size_t n : {0u, 1u, 2u, 1000u, 65536u}) {
    EXPECT_EQ(workspace_bytes<Key>(n), 0u) << "n=" << n;
  }
  for (const algorithm algo :
       {algorithm::global_step, algorithm::fused_steps, algorithm::shared_tiles}) {
    EXPECT_EQ(workspace_bytes<Key>(std::size_t{1} << 24, {.algo = algo}), 0u) << to_string(algo);
  }
  // block_merge merges into a scratch buffer of n keys once n exceeds its tile.
  EXPECT_GE(workspace_bytes<Key>(100000, {.algo = algorithm::block_merge}), 100000 * sizeof(Key));
}

TYPED_TEST(Workspace, ExactSizeSortsAndAllocatesNothing) {
  using Key = TypeParam;
  const std::size_t n = first_size_with_scratch<Key>();
  ASSERT_NE(n, 0u) << "no size up to 2^26 needs scratch on this device";
  for (const order direction : test::all_orders) {
    const options plain{.direction = direction};
    const std::size_t bytes = workspace_bytes<Key>(n, plain);
    ASSERT_GE(bytes, n * sizeof(Key));
    const std::uint64_t seed = test::case_seed(n, distribution::uniform);
    const std::vector<Key> input = tools::generate<Key>(n, distribution::uniform, seed);
    device_array<Key> keys(n);
    device_bytes workspace(bytes + 1);
    release_cached_memory();
    const default_pool_use before = default_pool_use::now();
    // At the start of the buffer and one byte in (any alignment is allowed).
    for (const std::size_t offset : {0u, 1u}) {
      options opt = plain;
      opt.workspace = workspace.get() + offset;
      opt.workspace_bytes = bytes;
      EXPECT_TRUE(matches_reference(test::sort_on_device(keys, input, opt),
                                    tools::reference_sort(input, direction)))
          << test::describe_case<Key>(n, distribution::uniform, seed, direction,
                                      algorithm::automatic)
          << " workspace offset " << offset;
      EXPECT_EQ(cached_memory_bytes(), 0u) << "the library's pool allocated despite a workspace";
      const default_pool_use after = default_pool_use::now();
      EXPECT_EQ(after.reserved, before.reserved) << "the device's default pool was used";
      EXPECT_EQ(after.used_high, before.used_high) << "the device's default pool was used";
    }
  }
}

TYPED_TEST(Workspace, OneByteTooFewThrowsAndLeavesTheKeys) {
  using Key = TypeParam;
  const std::size_t n = first_size_with_scratch<Key>();
  ASSERT_NE(n, 0u);
  const std::size_t bytes = workspace_bytes<Key>(n);
  const std::vector<Key> input =
      tools::generate<Key>(n, distribution::uniform, test::case_seed(n, distribution::uniform));
  device_array<Key> keys(n);
  keys.upload(input);
  device_bytes workspace(bytes);
  const options opt{.workspace = workspace.get(), .workspace_bytes = bytes - 1};
  EXPECT_TRUE(throws_error([&] { sort(keys.get(), n, opt); },
                           {"workspace_bytes is " + std::to_string(bytes - 1),
                            "needs " + std::to_string(bytes) + " bytes"}));
  const options none{.workspace = nullptr, .workspace_bytes = bytes};
  EXPECT_TRUE(throws_error([&] { sort(keys.get(), n, none); }, "options.workspace is null"));
  EXPECT_EQ(keys.download(), input);
}

TEST(WorkspaceErrors, HostMemoryAndOverlapAreRefused) {
  using Key = std::int32_t;
  const std::size_t n = first_size_with_scratch<Key>();
  ASSERT_NE(n, 0u);
  const std::size_t bytes = workspace_bytes<Key>(n);
  const std::vector<Key> input =
      tools::generate<Key>(n, distribution::uniform, test::case_seed(n, distribution::uniform));
  device_array<Key> keys(n + bytes / sizeof(Key) + 1);
  keys.upload(input);
  std::vector<std::byte> host(bytes);
  EXPECT_TRUE(throws_error(
      [&] { sort(keys.get(), n, {.workspace = host.data(), .workspace_bytes = bytes}); },
      "options.workspace is a host pointer"));
  EXPECT_TRUE(throws_error(
      [&] { sort(keys.get(), n, {.workspace = keys.get() + n - 1, .workspace_bytes = bytes}); },
      "overlaps the keys"));
  std::vector<Key> after = keys.download();
  after.resize(n);
  EXPECT_EQ(after, input);
  // Right behind the keys is fine.
  EXPECT_NO_THROW(sort(keys.get(), n, {.workspace = keys.get() + n, .workspace_bytes = bytes}));
}

TEST(LibraryPool, KeepsScratchBetweenCallsUntilReleased) {
  using Key = std::int32_t;
  const std::size_t n = first_size_with_scratch<Key>();
  ASSERT_NE(n, 0u);
  const std::vector<Key> input =
      tools::generate<Key>(n, distribution::uniform, test::case_seed(n, distribution::uniform));
  device_array<Key> keys(n);
  release_cached_memory();
  EXPECT_EQ(cached_memory_bytes(), 0u);
  const default_pool_use before = default_pool_use::now();
  EXPECT_TRUE(matches_reference(test::sort_on_device(keys, input, {}),
                                tools::reference_sort(input, order::ascending)));
  const std::size_t cached = cached_memory_bytes();
  EXPECT_GE(cached, n * sizeof(Key)) << "the scratch was not kept";
  EXPECT_TRUE(matches_reference(test::sort_on_device(keys, input, {}),
                                tools::reference_sort(input, order::ascending)));
  EXPECT_EQ(cached_memory_bytes(), cached) << "a second call of the same size grew the pool";
  const default_pool_use after = default_pool_use::now();
  EXPECT_EQ(after.used_high, before.used_high) << "the device's default pool was used";
  release_cached_memory();
  EXPECT_EQ(cached_memory_bytes(), 0u);
}

//! Sorts `input` through a graph captured from one call with `opt` (its stream is set here) and
//! replayed twice on fresh copies of the input.
template <class Key>
void expect_graph_replays_sort(const std::vector<Key>& input, options opt) {
  const std::size_t n = input.size();
  cuda_stream stream;
  opt.stream = stream.get();
  device_array<Key> keys(n);
  cudaGraph_t graph = nullptr;
  BITONIC_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
  sort(keys.get(), n, opt);
  BITONIC_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &graph));
  cudaGraphExec_t exec = nullptr;
  BITONIC_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  const std::vector<Key> expected = tools::reference_sort(input, opt.direction);
  for (int replay = 0; replay < 2; ++replay) {
    keys.upload(input, stream.get());
    BITONIC_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));
    EXPECT_TRUE(matches_reference(keys.download(stream.get()), expected)) << "replay " << replay;
  }
  BITONIC_CUDA_CHECK(cudaGraphExecDestroy(exec));
  BITONIC_CUDA_CHECK(cudaGraphDestroy(graph));
}

TEST(WorkspaceGraph, CapturedWithWorkspaceAndWithout) {
  using Key = float;
  const std::size_t n = first_size_with_scratch<Key>();
  ASSERT_NE(n, 0u);
  const std::vector<Key> input =
      tools::generate<Key>(n, distribution::nan, test::case_seed(n, distribution::nan));
  const std::size_t bytes = workspace_bytes<Key>(n);
  device_bytes workspace(bytes);
  expect_graph_replays_sort(
      input,
      {.direction = order::descending, .workspace = workspace.get(), .workspace_bytes = bytes});
  // Without one the scratch is a graph allocation, freed within the graph.
  expect_graph_replays_sort(input, {});
}

// For compute-sanitizer (gpu-check runs Sanitize*): the merge passes on a workspace whose start
// is not aligned, both key sizes.
template <class Key>
void expect_sort_on_unaligned_workspace() {
  const std::size_t n = first_size_with_scratch<Key>();
  ASSERT_NE(n, 0u);
  const std::size_t bytes = workspace_bytes<Key>(n);
  const std::uint64_t seed = test::case_seed(n, distribution::few);
  const std::vector<Key> input = tools::generate<Key>(n, distribution::few, seed);
  device_array<Key> keys(n);
  device_bytes workspace(bytes + 3);
  EXPECT_TRUE(matches_reference(
      test::sort_on_device(keys, input,
                           {.workspace = workspace.get() + 3, .workspace_bytes = bytes}),
      tools::reference_sort(input, order::ascending)))
      << test::describe_case<Key>(n, distribution::few, seed, order::ascending,
                                  algorithm::automatic);
}

TEST(Sanitize, OptimizedOnAnUnalignedWorkspace) {
  expect_sort_on_unaligned_workspace<std::int32_t>();
  expect_sort_on_unaligned_workspace<double>();
}

}  // namespace
}  // namespace bitonic
