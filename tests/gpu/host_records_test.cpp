// sort_pairs_host and argsort_host on a GPU, where the CPU tests (records_host_test.cpp) cannot
// reach: records that cross the 16 MiB staging chunks many times over (keys and values of
// different sizes, so their transfers take different numbers of chunks and go round the ring of
// staging buffers), pinned host memory, the caller's stream, and device budgets just under and
// just over what the device path needs (under: the CPU path). Stable results must equal
// std::stable_sort's bit for bit, unstable pairs are checked as a permutation.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "common_test.hpp"

namespace bitonic {
namespace {

using tools::distribution;

//! Records per 16 MiB staging chunk for elements of `bytes` bytes.
constexpr std::size_t chunk_elements(std::size_t bytes) {
  return (std::size_t{16} << 20) / bytes;
}

//! 0, 1, ..., n - 1 as Position.
template <class Position>
std::vector<Position> positions(std::size_t n) {
  std::vector<Position> p(n);
  std::iota(p.begin(), p.end(), Position{0});
  return p;
}

//! One input, sorted by sort_pairs_host with 4- and 8-byte positions as values (stable and
//! not) and by argsort_host into both index types, each checked against std::stable_sort.
template <class Key>
void expect_records(const std::vector<Key>& input, order direction, std::size_t max_device_bytes,
                    const std::string& what) {
  const std::size_t n = input.size();
  const std::vector<std::uint64_t> want = test::stable_order(input, direction);
  options opt{.direction = direction, .max_device_bytes = max_device_bytes};
  for (const bool stable : {false, true}) {
    SCOPED_TRACE(what + (stable ? " stable" : " unstable"));
    opt.stable = stable;
    const std::vector<std::uint64_t>* exact = stable ? &want : nullptr;
    std::vector<Key> keys = input;
    std::vector<std::uint32_t> narrow = positions<std::uint32_t>(n);
    sort_pairs_host(keys.data(), narrow.data(), n, opt);
    EXPECT_TRUE(test::sorted_records(keys, narrow, input, direction, exact)) << "uint32 values";
    keys = input;
    std::vector<std::uint64_t> wide = positions<std::uint64_t>(n);
    sort_pairs_host(keys.data(), wide.data(), n, opt);
    EXPECT_TRUE(test::sorted_records(keys, wide, input, direction, exact)) << "uint64 values";
  }
  SCOPED_TRACE(what);
  std::vector<std::uint32_t> narrow(n, 7);
  argsort_host(input.data(), narrow.data(), n, opt);
  EXPECT_EQ(std::vector<std::uint64_t>(narrow.begin(), narrow.end()), want) << "uint32 indices";
  std::vector<std::uint64_t> wide(n, 7);
  argsort_host(input.data(), wide.data(), n, opt);
  EXPECT_EQ(wide, want) << "uint64 indices";
}

template <class Key>
class HostRecords : public ::testing::Test {};
TYPED_TEST_SUITE(HostRecords, test::record_key_types, test::key_type_names);

// 2^21 + 5 records: one chunk of 4-byte elements, two of 8-byte ones; 5 * 2^21 + 3: three and
// six, past the ring's four buffers (8-byte values go round it where 4-byte keys do not).
TYPED_TEST(HostRecords, RecordsAcrossStagingChunks) {
  using Key = TypeParam;
  const std::size_t eight = chunk_elements(8);
  for (const std::size_t n : {eight + 5, 5 * eight + 3}) {
    for (const distribution d : {distribution::few, distribution::nan, distribution::uniform}) {
      if (n > eight + 5 && d == distribution::uniform) continue;  // the stable sorts take seconds
      const std::uint64_t seed = test::case_seed(n, d);
      const std::vector<Key> input = tools::generate<Key>(n, d, seed);
      for (const order direction : test::all_orders) {
        expect_records(input, direction, 0,
                       test::describe_case<Key>(n, d, seed, direction, algorithm::automatic));
      }
    }
  }
}

// The device path needs the records and the device form's scratch: a budget over the most that
// any of the calls needs takes it, half of that the CPU path; the same results either way.
TYPED_TEST(HostRecords, BudgetsAroundTheDevicePath) {
  using Key = TypeParam;
  const std::size_t n = (std::size_t{1} << 20) + 17;
  const distribution d = distribution::few;
  const std::uint64_t seed = test::case_seed(n, d);
  const std::vector<Key> input = tools::generate<Key>(n, d, seed);
  // The largest of the calls' needs: 8-byte values, stable (the most scratch).
  options stable{};
  stable.stable = true;
  const std::size_t need =
      n * (sizeof(Key) + 8) + pairs_workspace_bytes<Key, std::uint64_t>(n, stable);
  for (const std::size_t budget : {need + (std::size_t{1} << 20), need / 2}) {
    for (const order direction : test::all_orders) {
      expect_records(input, direction, budget,
                     test::describe_case<Key>(n, d, seed, direction, algorithm::automatic) +
                         " max_device_bytes=" + std::to_string(budget));
    }
  }
}

TEST(HostRecordsPinned, PinnedRecordsOnTheCallersStream) {
  using Key = float;
  const std::size_t n = chunk_elements(4) + 1001;
  const distribution d = distribution::nan;
  const std::uint64_t seed = test::case_seed(n, d);
  const std::vector<Key> input = tools::generate<Key>(n, d, seed);
  Key* keys = nullptr;
  std::uint64_t* values = nullptr;
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&keys), n * sizeof(Key)), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&values), n * sizeof(std::uint64_t)),
            cudaSuccess);
  cudaStream_t stream = nullptr;
  BITONIC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::memcpy(keys, input.data(), n * sizeof(Key));
  std::iota(values, values + n, std::uint64_t{0});
  options opt{.direction = order::descending, .stream = stream};
  opt.stable = true;
  sort_pairs_host(keys, values, n, opt);  // synchronous: the results are there on return
  const std::vector<Key> sorted(keys, keys + n);
  const std::vector<std::uint64_t> moved(values, values + n);
  std::vector<std::uint32_t> indices(n, 7);
  argsort_host(input.data(), indices.data(), n, opt);
  BITONIC_CUDA_CHECK(cudaStreamDestroy(stream));
  cudaFreeHost(keys);
  cudaFreeHost(values);
  const std::vector<std::uint64_t> want = test::stable_order(input, order::descending);
  EXPECT_TRUE(test::sorted_records(sorted, moved, input, order::descending, &want))
      << test::describe_case<Key>(n, d, seed, order::descending, algorithm::automatic);
  EXPECT_EQ(std::vector<std::uint64_t>(indices.begin(), indices.end()), want);
}

TEST(HostRecordsErrors, RefusedWithTheDataUntouched) {
  std::vector<double> keys = {3.0, -0.0, 0.0, 1.0};
  const std::vector<double> before = keys;
  std::vector<std::uint64_t> values = {0, 1, 2, 3};
  EXPECT_TRUE(test::throws_error(
      [&] { sort_pairs_host(keys.data(), reinterpret_cast<std::uint64_t*>(keys.data()) + 1, 3); },
      {"bitonic::sort_pairs_host", "overlap"}));
  EXPECT_TRUE(test::throws_error(
      [&] { sort_pairs_host(keys.data(), static_cast<std::uint64_t*>(nullptr), 4); },
      {"bitonic::sort_pairs_host", "h_values is null"}));
  EXPECT_TRUE(test::throws_error(
      [&] { argsort_host(keys.data(), values.data(), 4, {.algo = static_cast<algorithm>(9)}); },
      {"bitonic::argsort_host", "options.algo"}));
  EXPECT_EQ(std::memcmp(keys.data(), before.data(), keys.size() * sizeof(double)), 0);
  EXPECT_EQ(values, (std::vector<std::uint64_t>{0, 1, 2, 3}));
}

}  // namespace
}  // namespace bitonic
