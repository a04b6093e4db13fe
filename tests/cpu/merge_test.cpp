// merge::destination, the placement rule of block_merge's merge passes: for every pair of sorted
// runs (the last pair possibly cut short by n) the destinations must be a permutation of the
// pair's positions that yields one sorted run, left keys before equivalent right keys.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common_test.hpp"
#include "network/key_order.hpp"
#include "network/network.hpp"

namespace bitonic {
namespace {

using network::index_t;

// Keys of `values` cut into runs of 2^run_log2, each sorted under `less`.
template <class Key, class Less>
std::vector<Key> sorted_runs(std::vector<Key> values, unsigned run_log2, Less less) {
  const std::size_t run = std::size_t{1} << run_log2;
  for (std::size_t base = 0; base < values.size(); base += run) {
    std::sort(values.begin() + base, values.begin() + std::min(values.size(), base + run), less);
  }
  return values;
}

template <class Key, class Less>
void expect_merge_is_permutation(const std::vector<Key>& keys, unsigned run_log2, Less less) {
  const index_t n = keys.size(), run = index_t{1} << run_log2;
  std::vector<index_t> destination(n);
  std::vector<int> hits(n, 0);
  for (index_t i = 0; i < n; ++i) {
    destination[i] = merge::destination(keys.data(), n, i, run_log2, less);
    ASSERT_LT(destination[i], n) << "i=" << i;
    const index_t pair_base = i & ~(2 * run - 1);
    ASSERT_GE(destination[i], pair_base) << "key " << i << " leaves its pair of runs";
    ASSERT_LT(destination[i], pair_base + 2 * run) << "key " << i << " leaves its pair of runs";
    ++hits[destination[i]];
    // Within a run the order is kept (stable), so destinations strictly increase.
    if (i % run != 0) {
      ASSERT_GT(destination[i], destination[i - 1]) << "i=" << i;
    }
  }
  for (index_t d = 0; d < n; ++d)
    ASSERT_EQ(hits[d], 1) << "destination " << d;

  std::vector<Key> merged(n);
  std::vector<bool> from_left(n);
  for (index_t i = 0; i < n; ++i) {
    merged[destination[i]] = keys[i];
    from_left[destination[i]] = (i & run) == 0;
  }
  for (index_t d = 1; d < n; ++d) {
    if (d % (2 * run) == 0) continue;  // a new pair of runs starts
    ASSERT_FALSE(less(merged[d], merged[d - 1])) << "merged run not sorted at " << d;
    if (!less(merged[d - 1], merged[d])) {  // equivalent neighbours: left run's key goes first
      ASSERT_FALSE(from_left[d] && !from_left[d - 1]) << "right key before equal left key at " << d;
    }
  }
}

template <class Key>
void check_every_run_length(tools::distribution d) {
  for (unsigned run_log2 = 0; run_log2 <= 6; ++run_log2) {
    const std::size_t run = std::size_t{1} << run_log2;
    for (std::size_t n = 1; n <= 4 * run + 5; ++n) {
      const std::uint64_t seed = test::case_seed(n, d);
      const std::vector<Key> input = tools::generate<Key>(n, d, seed);
      SCOPED_TRACE(std::string(tools::type_name<Key>()) + " n=" + std::to_string(n) + " run_log2=" +
                   std::to_string(run_log2) + " distribution=" + std::string(tools::to_string(d)) +
                   " seed=" + std::to_string(seed));
      expect_merge_is_permutation(sorted_runs(input, run_log2, ascending_less{}), run_log2,
                                  ascending_less{});
      expect_merge_is_permutation(sorted_runs(input, run_log2, descending_less{}), run_log2,
                                  descending_less{});
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(MergeDestination, IsAPermutationWithFewDistinctKeys) {
  check_every_run_length<std::int32_t>(tools::distribution::few);
}

TEST(MergeDestination, IsAPermutationWithAllKeysEqual) {
  check_every_run_length<std::uint64_t>(tools::distribution::equal);
}

TEST(MergeDestination, IsAPermutationWithDistinctKeys) {
  check_every_run_length<std::int64_t>(tools::distribution::uniform);
}

TEST(MergeDestination, IsAPermutationWithNaNsAndSignedZeros) {
  check_every_run_length<float>(tools::distribution::nan);
  check_every_run_length<double>(tools::distribution::nan);
}

}  // namespace
}  // namespace bitonic
