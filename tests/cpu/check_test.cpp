// The checks the sort tests rely on must be able to fail: matches_reference (tools::first_mismatch)
// has to catch a misplaced, lost or altered key, and a plan with a pass missing must not sort. The
// inputs must be what their names say.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "common_test.hpp"
#include "cpu/execute.hpp"
#include "network/key_order.hpp"
#include "plan/plan.hpp"

namespace bitonic {
namespace {

using test::matches_reference;

TEST(Checks, CatchASwappedPair) {
  const std::vector<std::int32_t> expected = {1, 2, 3, 4, 5};
  EXPECT_TRUE(matches_reference(expected, expected));
  EXPECT_FALSE(matches_reference(std::vector<std::int32_t>{1, 2, 4, 3, 5}, expected));
}

TEST(Checks, CatchALostOrDuplicatedKey) {
  const std::vector<std::uint64_t> expected = {1, 2, 2, 3};
  EXPECT_FALSE(matches_reference(std::vector<std::uint64_t>{1, 2, 3, 3}, expected));
  EXPECT_FALSE(matches_reference(std::vector<std::uint64_t>{1, 2, 3}, expected));
}

// A lost key replaced by one that compares equivalent is invisible to the order; only the bit
// for bit comparison of the multisets catches it.
TEST(Checks, CatchAKeyReplacedByAnEquivalentOne) {
  const std::vector<double> expected = {-1.0, -0.0, 0.0, 2.0};
  EXPECT_FALSE(matches_reference(std::vector<double>{-1.0, 0.0, 0.0, 2.0}, expected))
      << "-0.0 turned into +0.0";
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> expected_nans = {1.0f, nan, -nan};
  EXPECT_FALSE(matches_reference(std::vector<float>{1.0f, nan, nan}, expected_nans))
      << "-NaN turned into +NaN";
}

TEST(Checks, AcceptEquivalentKeysInAnyOrder) {
  // The sort is not stable: equivalent keys may come in any order.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(matches_reference(std::vector<float>{0.0f, -0.0f, -nan, nan},
                                std::vector<float>{-0.0f, 0.0f, nan, -nan}));
}

// The reference itself: the threaded std::sort must order like one std::sort, on an odd size
// past its threshold, with NaNs, signed zeros and many equal keys.
TEST(Checks, ParallelReferenceOrdersLikeStdSort) {
  constexpr std::size_t n = (std::size_t{1} << 21) + 3;
  for (const auto dist : {tools::distribution::nan, tools::distribution::few}) {
    const std::uint64_t seed = test::case_seed(n, dist);
    SCOPED_TRACE(testing::Message() << tools::to_string(dist) << " seed " << seed);
    const std::vector<float> input = tools::generate<float>(n, dist, seed);
    for (const order direction : {order::ascending, order::descending}) {
      std::vector<float> expected = input;
      if (direction == order::ascending) {
        std::sort(expected.begin(), expected.end(), ascending_less{});
      } else {
        std::sort(expected.begin(), expected.end(), descending_less{});
      }
      EXPECT_TRUE(matches_reference(tools::reference_sort(input, direction), expected));
    }
  }
}

// The unit distribution is numpy's and torch's `rand() * 2 - 1`: floats on the grid of 2^-23 in
// [-1, 1), both ends reached at 2^20 keys and repeated values; integers the grid's steps.
TEST(Checks, UnitKeysAreTheGridOfPythonsRandomFloats) {
  constexpr std::size_t n = std::size_t{1} << 20;
  const std::uint64_t seed = test::case_seed(n, tools::distribution::unit);
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  const std::vector<float> floats = tools::generate<float>(n, tools::distribution::unit, seed);
  for (const float f : floats) {
    ASSERT_TRUE(f >= -1.0f && f < 1.0f) << f;
    ASSERT_EQ(f * 0x1p23f, std::trunc(f * 0x1p23f)) << f;  // on the grid
  }
  const auto [least, greatest] = std::minmax_element(floats.begin(), floats.end());
  EXPECT_LT(*least, -0.999f);
  EXPECT_GT(*greatest, 0.999f);
  std::vector<float> sorted = floats;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_NE(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());  // 2^20 of 2^24
  const std::vector<std::int32_t> ints =
      tools::generate<std::int32_t>(n, tools::distribution::unit, seed);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(float(ints[i]) * 0x1p-23f, floats[i]) << i;  // the same steps from the same seed
}

// A plan that lacks its last pass must leave the keys unsorted, and the check must say so:
// otherwise the sort tests could not tell a broken plan from a working one.
TEST(Checks, CatchAPlanWithAPassMissing) {
  constexpr std::size_t n = 20000;  // past one tile, so block_merge has merge passes
  const std::uint64_t seed = test::case_seed(n, tools::distribution::uniform);
  const std::vector<std::int32_t> input =
      tools::generate<std::int32_t>(n, tools::distribution::uniform, seed);
  const std::vector<std::int32_t> expected = tools::reference_sort(input, order::ascending);
  for (const algorithm algo : test::concrete_algorithms) {
    plan::plan broken = plan::make_plan(algo, n, sizeof(std::int32_t));
    broken.passes.pop_back();
    std::vector<std::int32_t> keys = input;
    cpu::execute(broken, keys.data(), ascending_less{});
    EXPECT_FALSE(matches_reference(keys, expected)) << to_string(algo);
  }
}

}  // namespace
}  // namespace bitonic
