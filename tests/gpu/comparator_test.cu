// bitonic.cuh: sorts under a caller's comparator against std::sort / std::stable_sort with the
// same comparator. Keys: a struct of two int32 fields (8 bytes: the key sort on the keys
// themselves), ordered by both fields (a total order: the result must equal std::sort's) or by
// the first only (equivalent keys that differ in bits: partial tiles pad with their greatest key,
// greatest_pad.cuh); stable sorts and sort_pairs (positions); argument errors. Sizes around a
// warp, a tile (2^13 eight-byte keys), the merges (to the scratch or back by their parity), and
// random ones, the split plans (into buckets, refined or not); the distributions of the key
// sort's tests on the first field. Seeds:
// test::case_seed(n, d). Other key sizes and a lambda: comparator_types_test.cu.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "api/caller_sort.cuh"
#include "bitonic/bitonic.cuh"
#include "bitonic/cuda_helpers.hpp"
#include "common_test.hpp"
#include "device_memory.hpp"
#include "network/key_order.hpp"
#include "plan/plan.hpp"

namespace bitonic {
namespace {

using test::device_array;
using tools::distribution;

struct pair32 {
  std::int32_t major, minor;
  friend bool operator==(const pair32&, const pair32&) = default;
};

//! By major, then (when `both_fields`) by minor: one comparator type, so that the test
//! instantiates the kernels once for both orders.
struct pair_less {
  bool both_fields = true;
  __host__ __device__ bool operator()(const pair32& a, const pair32& b) const {
    return a.major < b.major || (both_fields && a.major == b.major && a.minor < b.minor);
  }
};

std::vector<pair32> make_pairs(std::size_t n, distribution d) {
  const std::uint64_t seed = test::case_seed(n, d);
  const auto majors = tools::generate<std::int32_t>(n, d, seed);
  const auto minors = tools::generate<std::int32_t>(n, distribution::uniform, seed + 1);
  std::vector<pair32> keys(n);
  for (std::size_t i = 0; i < n; ++i)
    keys[i] = {majors[i], minors[i]};
  return keys;
}

//! `less` of the sort with opt's direction, on the host.
auto host_order(pair_less less, order direction) {
  return [=](const pair32& a, const pair32& b) {
    return direction == order::descending ? less(b, a) : less(a, b);
  };
}

std::string describe(std::size_t n, distribution d, const pair_less& less, const options& opt) {
  return "n=" + std::to_string(n) + " d=" + std::string(tools::to_string(d)) +
         " seed=" + std::to_string(test::case_seed(n, d)) +
         (less.both_fields ? " by both fields" : " by major") +
         (opt.direction == order::descending ? " descending" : " ascending") +
         (opt.stable ? " stable" : "");
}

//! Checks a sort's output against the host: equal to std::stable_sort when stable or the order is
//! total, else ordered under `less` and the same multiset of keys.
void expect_sorted_as(const std::vector<pair32>& input, const std::vector<pair32>& got,
                      pair_less less, const options& opt, const std::string& label) {
  std::vector<pair32> expected = input;
  std::stable_sort(expected.begin(), expected.end(), host_order(less, opt.direction));
  if (opt.stable || less.both_fields) {
    EXPECT_TRUE(got == expected) << label;
    return;
  }
  const auto within = host_order(less, opt.direction);
  EXPECT_TRUE(std::is_sorted(got.begin(), got.end(), within)) << label;
  const auto bits = [](std::vector<pair32> v) {
    std::sort(v.begin(), v.end(), pair_less{true});
    return v;
  };
  EXPECT_TRUE(bits(got) == bits(expected)) << label << ": not the same keys";
}

//! Sorts on the device (bitonic::sort) and checks against the host (expect_sorted_as).
void expect_sorted(const std::vector<pair32>& input, pair_less less, const options& opt,
                   const std::string& label) {
  device_array<pair32> keys(input.size());
  keys.upload(input);
  sort(keys.get(), input.size(), less, opt);
  expect_sorted_as(input, keys.download(), less, opt, label);
}

//! Runs the split plan (plan::make_split_plan; refined from 2^refine_min_log2 keys, 0: never) on
//! the keys under `less` as bitonic::sort runs its plans (api::run_caller_plan), at sizes that
//! the call does not split at, and checks against the host.
void expect_split_plan_sorts(const std::vector<pair32>& input, pair_less less, order direction,
                             unsigned refine_min_log2, const std::string& label) {
  const std::size_t n = input.size();
  const plan::plan p = plan::make_split_plan(n, sizeof(pair32), refine_min_log2);
  using word = caller_key<pair32>;
  device_array<pair32> keys(n);
  device_array<word> scratch(p.scratch_keys);
  keys.upload(input);
  auto* const words = reinterpret_cast<word*>(keys.get());
  if (direction == order::descending) {
    api::run_caller_plan<true, true>(p, words, scratch.get(), less, cudaStream_t{});
  } else {
    api::run_caller_plan<false, true>(p, words, scratch.get(), less, cudaStream_t{});
  }
  BITONIC_CUDA_CHECK(cudaDeviceSynchronize());
  expect_sorted_as(input, keys.download(), less, {.direction = direction},
                   label + (p.refined ? " refined split plan" : " split plan"));
}

const std::vector<std::size_t>& lengths() {
  static const std::vector<std::size_t> all = [] {
    std::vector<std::size_t> l = {
        0,    1,    2,    3,     31,    32,    33,    1023,     1024,           1025,
        8191, 8192, 8193, 16383, 16385, 40000, 65537, 1u << 17, (1u << 18) + 77};
    for (const std::size_t n : test::random_lengths(6, 2, 17, 0xc0ffee))
      l.push_back(n);
    return l;
  }();
  return all;
}

constexpr distribution distributions[] = {distribution::uniform, distribution::sorted,
                                          distribution::reverse, distribution::organ,
                                          distribution::equal,   distribution::few};

TEST(Comparator, StructKeysMatchStdSort) {
  for (const bool both_fields : {true, false}) {
    for (const order direction : test::all_orders) {
      for (const std::size_t n : lengths()) {
        for (const distribution d : distributions) {
          const pair_less less{both_fields};
          const options opt{.direction = direction};
          expect_sorted(make_pairs(n, d), less, opt, describe(n, d, less, opt));
        }
      }
    }
  }
}

// Past 2^22 keys: merges whose count is odd (first pass into the scratch) and even; from 2^23
// the split into buckets (plan::make_comparator_plan), refined from 2^24.
TEST(Comparator, LargeStructKeys) {
  for (const std::size_t n :
       {(std::size_t{1} << 22) + 12345, (std::size_t{1} << 23) + 1, (std::size_t{1} << 24) + 3}) {
    for (const distribution d :
         {distribution::uniform, distribution::few, distribution::equal, distribution::organ}) {
      for (const bool both_fields : {false, true}) {
        const pair_less less{both_fields};
        const options opt{.direction = both_fields ? order::descending : order::ascending};
        expect_sorted(make_pairs(n, d), less, opt, describe(n, d, less, opt));
      }
    }
  }
}

// The split plans under a caller's order at small sizes: one bucket to many, unrefined and
// refined (equality buckets where keys repeat), both orders, both comparators.
TEST(Comparator, SplitPlans) {
  for (const std::size_t n : {std::size_t{2}, std::size_t{1000}, std::size_t{8193},
                              (std::size_t{1} << 17) + 1, (std::size_t{1} << 20) + 333}) {
    for (const distribution d : tools::all_distributions) {
      for (const bool both_fields : {false, true}) {
        for (const order direction : test::all_orders) {
          for (const unsigned refine_min_log2 : {0u, 17u}) {
            const pair_less less{both_fields};
            const options opt{.direction = direction};
            expect_split_plan_sorts(make_pairs(n, d), less, direction, refine_min_log2,
                                    describe(n, d, less, opt));
          }
        }
      }
    }
  }
}

TEST(Comparator, StableMatchesStdStableSort) {
  for (const order direction : test::all_orders) {
    for (const std::size_t n :
         {std::size_t{2}, std::size_t{1000}, std::size_t{8193}, std::size_t{100003}}) {
      for (const distribution d : {distribution::few, distribution::equal, distribution::uniform}) {
        const pair_less less{false};
        const options opt{.direction = direction, .stable = true};
        expect_sorted(make_pairs(n, d), less, opt, describe(n, d, less, opt));
      }
    }
  }
}

TEST(Comparator, PairsMoveValuesWithTheirKeys) {
  for (const bool stable : {false, true}) {
    for (const std::size_t n :
         {std::size_t{0}, std::size_t{1}, std::size_t{33}, std::size_t{8193}, std::size_t{70001}}) {
      const distribution d = distribution::few;
      const std::vector<pair32> input = make_pairs(n, d);
      std::vector<std::uint64_t> values(n);
      for (std::size_t i = 0; i < n; ++i)
        values[i] = 1000 * i + 7;
      device_array<pair32> keys(n);
      device_array<std::uint64_t> vals(n);
      keys.upload(input);
      vals.upload(values);
      const pair_less less{false};
      const options opt{.stable = stable};
      sort_pairs(keys.get(), vals.get(), n, less, opt);
      const auto got_keys = keys.download();
      const auto got_values = vals.download();
      const std::string label = describe(n, d, less, opt);
      std::vector<bool> seen(n, false);
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t from = (got_values[i] - 7) / 1000;
        ASSERT_TRUE(from < n && !seen[from] && got_keys[i] == input[from]) << label << " at " << i;
        seen[from] = true;
      }
      EXPECT_TRUE(std::is_sorted(got_keys.begin(), got_keys.end(), less)) << label;
      if (stable) {
        std::vector<std::size_t> order(n);
        for (std::size_t i = 0; i < n; ++i)
          order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return less(input[a], input[b]); });
        for (std::size_t i = 0; i < n; ++i)
          ASSERT_EQ(got_values[i], values[order[i]]) << label << " at " << i;
      }
    }
  }
}

TEST(Comparator, ErrorsLeaveTheKeysAlone) {
  const std::size_t n = 100000;
  const std::vector<pair32> input = make_pairs(n, distribution::uniform);
  device_array<pair32> keys(n);
  keys.upload(input);
  const pair_less less{};
  EXPECT_TRUE(test::throws_error([&] { sort(static_cast<pair32*>(nullptr), n, less); }, "null"));
  std::vector<pair32> host = input;
  EXPECT_TRUE(test::throws_error([&] { sort(host.data(), n, less); }, "device"));
  pair32* const misaligned =
      reinterpret_cast<pair32*>(reinterpret_cast<unsigned char*>(keys.get()) + 4);
  EXPECT_TRUE(test::throws_error([&] { sort(misaligned, n - 1, less); }, "aligned"));
  EXPECT_TRUE(test::throws_error(
      [&] { sort(keys.get(), n, less, {.algo = algorithm::shared_tiles}); }, "optimized"));
  const std::size_t needed = workspace_bytes<pair32>(n, less);
  ASSERT_GT(needed, 0u);
  device_array<std::byte> workspace(needed);
  EXPECT_TRUE(test::throws_error(
      [&] {
        sort(keys.get(), n, less, {.workspace = workspace.get(), .workspace_bytes = needed - 1});
      },
      std::to_string(needed)));
  EXPECT_TRUE(keys.download() == input) << "the keys changed on an error";
  sort(keys.get(), n, less, {.workspace = workspace.get(), .workspace_bytes = needed});
  std::vector<pair32> expected = input;
  std::sort(expected.begin(), expected.end(), less);
  EXPECT_TRUE(keys.download() == expected) << "with the exact workspace";
}

// The split plan's scratch (the keys, the merges' splits, the split's and the refinement's tables)
// in exactly workspace_bytes, from an offset that is not aligned; one byte less is refused.
TEST(Comparator, SplitInAnExactWorkspace) {
  const std::size_t n = (std::size_t{1} << 24) + 3;
  const std::vector<pair32> input = make_pairs(n, distribution::few);
  const pair_less less{};
  const std::size_t needed = workspace_bytes<pair32>(n, less);
  ASSERT_GT(needed, n * sizeof(pair32));
  device_array<pair32> keys(n);
  device_array<std::byte> workspace(needed + 1);
  keys.upload(input);
  std::byte* const offset = workspace.get() + 1;
  EXPECT_TRUE(test::throws_error(
      [&] { sort(keys.get(), n, less, {.workspace = offset, .workspace_bytes = needed - 1}); },
      std::to_string(needed)));
  EXPECT_TRUE(keys.download() == input) << "the keys changed on an error";
  sort(keys.get(), n, less, {.workspace = offset, .workspace_bytes = needed});
  std::vector<pair32> expected = input;
  std::sort(expected.begin(), expected.end(), less);
  EXPECT_TRUE(keys.download() == expected) << "split plan in the exact workspace";
}

// Small cases of every road for compute-sanitizer (scripts/gpu-check runs Sanitize* under it):
// the key sort in both orders with a partial tile and one merge, stable (positions), pairs, and
// the split plans, unrefined and refined.
TEST(SanitizeComparator, EveryRoad) {
  for (const unsigned refine_min_log2 : {0u, 17u}) {
    const std::size_t n = (std::size_t{1} << 17) + 1;
    for (const distribution d : {distribution::uniform, distribution::few}) {
      const pair_less less{false};
      expect_split_plan_sorts(make_pairs(n, d), less, order::descending, refine_min_log2,
                              describe(n, d, less, {.direction = order::descending}));
    }
  }
  for (const std::size_t n : {std::size_t{1000}, std::size_t{20001}}) {
    const distribution d = distribution::few;
    for (const order direction : test::all_orders) {
      const pair_less less{false};
      const options opt{.direction = direction};
      expect_sorted(make_pairs(n, d), less, opt, describe(n, d, less, opt));
    }
    const pair_less less{false};
    const options stable{.stable = true};
    expect_sorted(make_pairs(n, d), less, stable, describe(n, d, less, stable));
    const std::vector<pair32> input = make_pairs(n, d);
    std::vector<std::uint32_t> ids(n);
    for (std::size_t i = 0; i < n; ++i)
      ids[i] = std::uint32_t(i);
    device_array<pair32> keys(n);
    device_array<std::uint32_t> values(n);
    keys.upload(input);
    values.upload(ids);
    sort_pairs(keys.get(), values.get(), n, less);
    const std::vector<pair32> sorted = keys.download();
    const std::vector<std::uint32_t> moved = values.download();
    EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end(), less));
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_TRUE(sorted[i] == input[moved[i]]) << i;
  }
}

}  // namespace
}  // namespace bitonic
