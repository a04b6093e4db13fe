// bitonic::sort_host on a GPU: pageable and pinned host keys, sizes that cross the 16 MiB staging
// chunks, and out of core (max_device_bytes an eighth of the data, so runs and streamed merges),
// every key type and both orders, each checked in full against std::sort.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "common_test.hpp"

namespace bitonic {
namespace {

template <class Key>
class HostSort : public ::testing::Test {};
TYPED_TEST_SUITE(HostSort, test::key_types, test::key_type_names);

template <class Key>
void expect_host_sort(std::size_t n, tools::distribution d, order direction,
                      std::size_t max_device_bytes) {
  const std::uint64_t seed = test::case_seed(n, d);
  std::vector<Key> keys = tools::generate<Key>(n, d, seed);
  const std::vector<Key> expected = tools::reference_sort(keys, direction);
  options opt{direction};
  opt.max_device_bytes = max_device_bytes;
  sort_host(keys.data(), n, opt);
  EXPECT_TRUE(test::matches_reference(keys, expected))
      << test::describe_case<Key>(n, d, seed, direction, algorithm::automatic)
      << " sort_host max_device_bytes=" << max_device_bytes;
}

TYPED_TEST(HostSort, PageableKeysMatchStdSort) {
  using Key = TypeParam;
  const std::size_t chunk_keys = (std::size_t{16} << 20) / sizeof(Key);
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000},
                              (std::size_t{1} << 20) + 3, 5 * chunk_keys + 1}) {
    for (const order direction : test::all_orders) {
      expect_host_sort<Key>(n, tools::distribution::uniform, direction, 0);
      expect_host_sort<Key>(n, tools::distribution::nan, direction, 0);
    }
  }
}

// Past one chunk, the stages above it on whole groups of chunks (4), on a partial group and a
// lone partial chunk at the end (above), adversarial inputs, and with a device budget of one and
// a half times the keys.
TYPED_TEST(HostSort, StagesPastTheChunk) {
  using Key = TypeParam;
  const std::size_t chunk_keys = (std::size_t{16} << 20) / sizeof(Key);
  for (const order direction : test::all_orders) {
    for (const tools::distribution d :
         {tools::distribution::few, tools::distribution::nan, tools::distribution::organ}) {
      expect_host_sort<Key>(4 * chunk_keys, d, direction, 0);
      expect_host_sort<Key>(3 * chunk_keys + 12345, d, direction, 0);
    }
    const std::size_t n = 3 * chunk_keys + 12345;
    expect_host_sort<Key>(n, tools::distribution::uniform, direction, n * sizeof(Key) * 3 / 2);
  }
}

TYPED_TEST(HostSort, OutOfCoreWithAnEighthOfTheDataOnTheDevice) {
  using Key = TypeParam;
  for (const std::size_t n : {(std::size_t{1} << 22) + 7, std::size_t{3} << 20}) {
    for (const order direction : test::all_orders) {
      for (const tools::distribution d : {tools::distribution::uniform, tools::distribution::few}) {
        expect_host_sort<Key>(n, d, direction, n * sizeof(Key) / 8);
      }
    }
  }
}

// Device budgets of a few keys: sorted out of core in runs of a few keys and merge pieces of one
// or two, or, below what one piece, its output and its merge's splits need, refused with the
// reason and the keys untouched; from 8 keys on always sorted.
TEST(HostSortBudget, TinyDeviceBudgets) {
  const std::size_t n = 100;
  const std::uint64_t seed = test::case_seed(n, tools::distribution::few);
  const std::vector<std::int32_t> input =
      tools::generate<std::int32_t>(n, tools::distribution::few, seed);
  const std::vector<std::int32_t> expected = tools::reference_sort(input, order::ascending);
  for (std::size_t budget_keys = 2; budget_keys <= 40; ++budget_keys) {
    SCOPED_TRACE("max_device_bytes = " + std::to_string(budget_keys * sizeof(std::int32_t)));
    std::vector<std::int32_t> keys = input;
    options opt;
    opt.max_device_bytes = budget_keys * sizeof(std::int32_t);
    try {
      sort_host(keys.data(), n, opt);
      EXPECT_TRUE(test::matches_reference(keys, expected)) << "seed=" << seed;
    } catch (const error& e) {
      EXPECT_NE(std::string(e.what()).find("too little device memory"), std::string::npos)
          << e.what();
      EXPECT_EQ(keys, input) << "keys changed by a refused call";
      EXPECT_LT(budget_keys, 8u) << e.what();
    }
  }
}

TEST(HostSortPinned, PinnedKeysMatchStdSort) {
  const std::size_t n = (std::size_t{1} << 22) + 11;
  const std::uint64_t seed = test::case_seed(n, tools::distribution::uniform);
  const std::vector<float> input = tools::generate<float>(n, tools::distribution::uniform, seed);
  float* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&pinned), n * sizeof(float)), cudaSuccess);
  std::memcpy(pinned, input.data(), n * sizeof(float));
  sort_host(pinned, n, {order::descending});
  const std::vector<float> result(pinned, pinned + n);
  cudaFreeHost(pinned);
  EXPECT_TRUE(test::matches_reference(result, tools::reference_sort(input, order::descending)));
}

TEST(HostSortErrors, NullPointerIsRejected) {
  EXPECT_THROW(sort_host<std::int32_t>(nullptr, 10), error);
  EXPECT_NO_THROW(sort_host<std::int32_t>(nullptr, 0));
}

}  // namespace
}  // namespace bitonic
