// Argument errors of the public API that every machine can check: each throws bitonic::error with
// a message that names the problem, and leaves the caller's keys as they were.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "common_test.hpp"

namespace bitonic {
namespace {

using test::throws_error;

const std::vector<std::int32_t> unsorted_keys = {5, 3, 9, -1, 7, 0, 2};

TEST(Errors, NullKeysWithPositiveLength) {
  EXPECT_TRUE(throws_error([] { sort_on_cpu<std::int32_t>(nullptr, 5); }, "null"));
  EXPECT_TRUE(throws_error([] { sort<double>(nullptr, 5); }, "null"));
}

TEST(Errors, NullKeysWithZeroLengthIsFine) {
  EXPECT_NO_THROW(sort_on_cpu<std::int32_t>(nullptr, 0));
  EXPECT_NO_THROW(sort_on_cpu<double>(nullptr, 0, {order::descending, algorithm::block_merge}));
  EXPECT_NO_THROW(sort<std::uint64_t>(nullptr, 0));
}

TEST(Errors, InvalidEnumValuesInOptions) {
  const options bad_order{static_cast<order>(7), algorithm::automatic, nullptr};
  const options bad_algorithm{order::ascending, static_cast<algorithm>(99), nullptr};
  std::vector<std::int32_t> keys = unsorted_keys;
  EXPECT_TRUE(throws_error([&] { sort_on_cpu(keys.data(), keys.size(), bad_order); }, "order"));
  EXPECT_TRUE(
      throws_error([&] { sort_on_cpu(keys.data(), keys.size(), bad_algorithm); }, "algorithm"));
  // The options are checked before the pointer, so a host pointer gets the same answer.
  EXPECT_TRUE(throws_error([&] { sort(keys.data(), keys.size(), bad_order); }, "order"));
  EXPECT_TRUE(throws_error([&] { sort(keys.data(), keys.size(), bad_algorithm); }, "algorithm"));
  EXPECT_EQ(keys, unsorted_keys);
}

TEST(Errors, GpuSortOfHostMemory) {
  // Where a device exists the pointer is rejected as host memory; elsewhere the missing device
  // is reported first. Either way nothing is sorted.
  const bool has_gpu = gpu_available();
  std::cout << "gpu_available() = " << has_gpu << '\n';
  std::vector<std::int32_t> keys = unsorted_keys;
  EXPECT_TRUE(throws_error([&] { sort(keys.data(), keys.size()); },
                           has_gpu ? "host pointer" : "no CUDA device"));
  EXPECT_EQ(keys, unsorted_keys);
}

TEST(Errors, WorkspaceQueriesAndOptions) {
  const options bad_algorithm{.algo = static_cast<algorithm>(99)};
  EXPECT_TRUE(throws_error([&] { workspace_bytes<float>(1000, bad_algorithm); }, "algorithm"));
  // No sort of fewer than two keys needs a workspace, on any machine.
  EXPECT_EQ(workspace_bytes<std::int64_t>(0), 0u);
  EXPECT_EQ(workspace_bytes<std::int64_t>(1), 0u);
  if (!gpu_available()) {
    EXPECT_TRUE(throws_error([] { workspace_bytes<std::int32_t>(1000); }, "no CUDA device"));
    // Nothing cached without a device; releasing nothing is fine.
    EXPECT_EQ(cached_memory_bytes(), 0u);
    EXPECT_NO_THROW(release_cached_memory());
  }
  // A workspace does not change the argument checks on the keys, nor touches host keys.
  std::vector<std::int32_t> keys = unsorted_keys;
  std::vector<std::byte> host_workspace(1024);
  const options with_workspace{.workspace = host_workspace.data(), .workspace_bytes = 1024};
  EXPECT_TRUE(throws_error([&] { sort(keys.data(), keys.size(), with_workspace); },
                           gpu_available() ? "host pointer" : "no CUDA device"));
  EXPECT_EQ(keys, unsorted_keys);
}

// The argsorts that also write the sorted keys check their arguments on any machine: bad options
// first, then the arrays (host memory here: no device in CI, host pointers on a GPU machine);
// nothing is written.
TEST(Errors, ArgsortWithSortedKeysChecksItsArguments) {
  const std::vector<std::int32_t> keys = unsorted_keys;
  std::vector<std::int32_t> sorted(keys.size(), 7);
  std::vector<std::uint64_t> indices(keys.size(), 9);
  const options bad_order{.direction = static_cast<order>(7)};
  EXPECT_TRUE(throws_error(
      [&] { argsort(keys.data(), sorted.data(), indices.data(), keys.size(), bad_order); },
      {"bitonic::argsort", "options.direction"}));
  EXPECT_TRUE(throws_error(
      [&] {
        argsort_batched(keys.data(), sorted.data(), indices.data(), 1, keys.size(), bad_order);
      },
      {"bitonic::argsort_batched", "options.direction"}));
  const char* const device_problem = gpu_available() ? "host pointer" : "no CUDA device";
  EXPECT_TRUE(throws_error(
      [&] { argsort(keys.data(), sorted.data(), indices.data(), keys.size()); }, device_problem));
  EXPECT_TRUE(throws_error(
      [&] { argsort_batched(keys.data(), sorted.data(), indices.data(), 1, keys.size()); },
      device_problem));
  EXPECT_EQ(sorted, std::vector<std::int32_t>(keys.size(), 7));
  EXPECT_EQ(indices, std::vector<std::uint64_t>(keys.size(), 9));
}

}  // namespace
}  // namespace bitonic
