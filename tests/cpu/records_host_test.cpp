// sort_pairs_host and argsort_host against std::stable_sort: on the CPU where there is no GPU (CI),
// through the device where there is one, and on the CPU again when opt.max_device_bytes leaves the
// device too little. Stable results must equal std::stable_sort's bit for bit; unstable pairs and
// argsorts are checked as a permutation (keys in order, every value once, beside its own key's
// bits).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "common_test.hpp"

namespace bitonic {
namespace {

using tools::distribution;

template <class Key>
class RecordsHost : public ::testing::Test {};
TYPED_TEST_SUITE(RecordsHost, test::record_key_types, test::key_type_names);

TYPED_TEST(RecordsHost, PairsAndArgsortMatchStdStableSort) {
  using Key = TypeParam;
  std::vector<std::size_t> sizes = {0, 1, 2, 3, 31, 32, 33, 1023, 1024, 1025, 20000};
  for (const std::size_t n : test::random_lengths(2, 3, 15, 2611 + test::key_type_index<Key>()))
    sizes.push_back(n);
  for (const std::size_t n : sizes) {
    for (const distribution d : tools::all_distributions) {
      const std::uint64_t seed = test::case_seed(n, d);
      const std::vector<Key> input = tools::generate<Key>(n, d, seed);
      std::vector<std::uint64_t> positions(n);
      std::iota(positions.begin(), positions.end(), std::uint64_t{0});
      for (const order direction : test::all_orders) {
        const std::vector<std::uint64_t> want = test::stable_order(input, direction);
        for (const std::size_t max_device_bytes : {std::size_t{0}, std::size_t{1024}}) {
          SCOPED_TRACE(test::describe_case<Key>(n, d, seed, direction, algorithm::automatic) +
                       " max_device_bytes=" + std::to_string(max_device_bytes));
          const options opt{.direction = direction, .max_device_bytes = max_device_bytes};
          std::vector<std::uint32_t> indices(n, 7);
          argsort_host(
              input.data(), indices.data(), n,
              {.direction = direction, .max_device_bytes = max_device_bytes, .stable = true});
          ASSERT_EQ(std::vector<std::uint64_t>(indices.begin(), indices.end()), want);
          std::vector<std::uint64_t> wide(n, 7);  // not stable: any order among equal keys
          argsort_host(input.data(), wide.data(), n, opt);
          ASSERT_TRUE(test::sorting_indices(wide, input, direction)) << "unstable argsort";
          for (const bool stable : {false, true}) {
            std::vector<Key> keys = input;
            std::vector<std::uint64_t> values = positions;
            options pairs = opt;
            pairs.stable = stable;
            sort_pairs_host(keys.data(), values.data(), n, pairs);
            ASSERT_TRUE(
                test::sorted_records(keys, values, input, direction, stable ? &want : nullptr))
                << "stable=" << stable;
          }
          std::vector<Key> keys = input;  // 4-byte values (packed words on the device)
          std::vector<std::uint32_t> narrow(positions.begin(), positions.end());
          sort_pairs_host(keys.data(), narrow.data(), n, opt);
          ASSERT_TRUE(test::sorted_records(keys, narrow, input, direction, nullptr))
              << "uint32 values";
        }
      }
    }
  }
}

TEST(RecordsHostErrors, BadArgumentsLeaveTheDataAlone) {
  std::vector<float> keys = {3.0f, 1.0f, 2.0f};
  const std::vector<float> before = keys;
  std::vector<std::uint32_t> values = {0, 1, 2};
  EXPECT_TRUE(test::throws_error(
      [&] { sort_pairs_host(keys.data(), static_cast<std::uint32_t*>(nullptr), 3); },
      {"bitonic::sort_pairs_host", "h_values is null"}));
  EXPECT_TRUE(
      test::throws_error([&] { sort_pairs_host(static_cast<float*>(nullptr), values.data(), 3); },
                         {"bitonic::sort_pairs_host", "h_keys is null"}));
  EXPECT_TRUE(test::throws_error(
      [&] { argsort_host(keys.data(), static_cast<std::uint64_t*>(nullptr), 3); },
      {"bitonic::argsort_host", "h_indices is null"}));
  EXPECT_TRUE(test::throws_error(
      [&] { sort_pairs_host(keys.data(), values.data(), 3, {static_cast<order>(5)}); },
      "options.direction"));
  EXPECT_TRUE(test::throws_error(
      [&] { argsort_host(keys.data(), values.data(), 3, {.algo = static_cast<algorithm>(42)}); },
      "options.algo"));
  EXPECT_EQ(keys, before);
  EXPECT_EQ(values, (std::vector<std::uint32_t>{0, 1, 2}));
}

TEST(RecordsHostErrors, OverlappingArraysAreRefused) {
  // One buffer seen as keys and as records of the other: the host forms cannot tell which bytes
  // are which once both come back, so they refuse, as the device forms do, before any move.
  std::vector<std::uint32_t> buffer = {5, 4, 3, 2, 1, 0, 9, 8};
  const std::vector<std::uint32_t> before = buffer;
  auto* keys = reinterpret_cast<std::int32_t*>(buffer.data());
  EXPECT_TRUE(test::throws_error([&] { sort_pairs_host(keys, buffer.data() + 3, 4); },
                                 {"bitonic::sort_pairs_host", "h_keys and h_values overlap"}));
  EXPECT_TRUE(test::throws_error([&] { sort_pairs_host(keys, buffer.data(), 8); },
                                 {"bitonic::sort_pairs_host", "overlap"}));
  EXPECT_TRUE(test::throws_error([&] { argsort_host(keys + 2, buffer.data(), 3); },
                                 {"bitonic::argsort_host", "h_keys and h_indices overlap"}));
  auto* wide = reinterpret_cast<std::uint64_t*>(buffer.data() + 4);  // bytes 16..31 of 32
  EXPECT_TRUE(test::throws_error([&] { argsort_host(keys + 3, wide, 2); }, "overlap"));
  EXPECT_EQ(buffer, before);
  // Adjacent arrays share no byte: sorted as usual.
  sort_pairs_host(keys, buffer.data() + 4, 4);
  EXPECT_EQ(buffer, (std::vector<std::uint32_t>{2, 3, 4, 5, 8, 9, 0, 1}));
  std::uint32_t indices[4] = {7, 7, 7, 7};
  argsort_host(keys, indices, 0);  // n = 0: nothing to overlap, nothing written
  EXPECT_EQ(indices[0], 7u);
}

}  // namespace
}  // namespace bitonic
