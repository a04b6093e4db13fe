// The index math of network.hpp against definitions written independently of it: the flip form
// as "mirror inside the 2^s block", comparator counts by brute force, and the 0-1 principle.
#include "network/network.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "network/key_order.hpp"

namespace bitonic::network {
namespace {

// The partner of i in a step, from the design's words rather than from partner_mask().
index_t reference_partner(step st, index_t i) {
  if (st.distance_log2 + 1 == st.stage) {
    const index_t block = index_t{1} << st.stage;
    const index_t base = i & ~(block - 1);
    return base + (block - 1) - (i - base);  // mirror inside the 2^s block
  }
  const index_t distance = index_t{1} << st.distance_log2;
  return (i & distance) ? i - distance : i + distance;
}

// Every step of the network for 2^k keys, in schedule order, built by nested loops.
std::vector<step> reference_schedule(unsigned k) {
  std::vector<step> steps;
  for (unsigned s = 1; s <= k; ++s) {
    for (unsigned j = s; j-- > 0;)
      steps.push_back(step{s, j});
  }
  return steps;
}

TEST(Network, CeilLog2OfSmallAndHugeSizes) {
  EXPECT_EQ(ceil_log2(0), 0u);
  EXPECT_EQ(ceil_log2(1), 0u);
  EXPECT_EQ(ceil_log2(2), 1u);
  EXPECT_EQ(ceil_log2(3), 2u);
  EXPECT_EQ(ceil_log2(4), 2u);
  EXPECT_EQ(ceil_log2(5), 3u);
  for (index_t n = 2; n <= 5000; ++n) {
    ASSERT_EQ(ceil_log2(n), unsigned(std::bit_width(n - 1))) << "n=" << n;
  }
  for (unsigned p = 1; p < 63; ++p) {
    const index_t power = index_t{1} << p;
    EXPECT_EQ(ceil_log2(power - 1), p == 1 ? 0u : p) << "2^" << p << "-1";
    EXPECT_EQ(ceil_log2(power), p) << "2^" << p;
    EXPECT_EQ(ceil_log2(power + 1), p + 1) << "2^" << p << "+1";
  }
}

TEST(Network, ScheduleWalkVisitsEveryStepInOrder) {
  for (unsigned k = 0; k <= 40; ++k) {
    SCOPED_TRACE("k=" + std::to_string(k));
    const std::vector<step> expected = reference_schedule(k);
    ASSERT_EQ(step_count(k), expected.size());
    step st{1, 0};
    for (std::size_t i = 0; i < expected.size(); ++i, st = st.next()) {
      ASSERT_EQ(st, expected[i]) << "position " << i;
      ASSERT_EQ(st.ordinal(), i);
      ASSERT_EQ(st.is_flip(), i == 0 || expected[i - 1].stage != st.stage);
      ASSERT_EQ(st.span_log2(), st.distance_log2 + 1);
    }
    EXPECT_EQ(st, (step{k + 1, k})) << "the walk continues with the next stage's flip";
  }
}

TEST(Network, StepsOfSmallNetworksPairEveryIndexOnce) {
  for (unsigned k = 1; k <= 10; ++k) {
    const index_t n = index_t{1} << k;
    for (const step st : reference_schedule(k)) {
      SCOPED_TRACE("k=" + std::to_string(k) + " step (" + std::to_string(st.stage) + "," +
                   std::to_string(st.distance_log2) + ")");
      ASSERT_EQ(st.comparators_below(n), n / 2);
      std::vector<int> uses(n, 0);
      index_t previous_lower = 0;
      for (index_t c = 0; c < n / 2; ++c) {
        const index_t lo = st.lower_index(c), hi = st.upper_index(lo);
        ASSERT_LT(lo, hi) << "c=" << c;
        ASSERT_LT(hi, n) << "c=" << c;
        if (c > 0) {
          ASSERT_GT(lo, previous_lower) << "comparators are numbered by lower index";
        }
        previous_lower = lo;
        ASSERT_EQ(hi, reference_partner(st, lo)) << "c=" << c;
        ASSERT_EQ(lo, reference_partner(st, hi)) << "c=" << c;
        ASSERT_EQ(hi, lo ^ st.partner_mask());
        ASSERT_EQ(lo >> st.span_log2(), hi >> st.span_log2())
            << "pair leaves its 2^span_log2 block, c=" << c;
        ++uses[lo];
        ++uses[hi];
      }
      for (index_t i = 0; i < n; ++i)
        ASSERT_EQ(uses[i], 1) << "index " << i;
    }
  }
}

TEST(Network, ComparatorsBelowMatchesBruteForceCount) {
  for (const step st : reference_schedule(11)) {
    SCOPED_TRACE("step (" + std::to_string(st.stage) + "," + std::to_string(st.distance_log2) +
                 ")");
    index_t lowers_below = 0;  // #{i < n : i is the lower index of its pair}
    for (index_t n = 0; n <= (index_t{4} << st.stage) + 3; ++n) {
      const index_t counted = st.comparators_below(n);
      ASSERT_EQ(counted, lowers_below) << "n=" << n;
      // The count is a prefix of the numbering: comparator `counted` is the first at or past n.
      if (counted > 0) {
        ASSERT_LT(st.lower_index(counted - 1), n) << "n=" << n;
      }
      ASSERT_GE(st.lower_index(counted), n) << "n=" << n;
      if (reference_partner(st, n) > n) ++lowers_below;
    }
  }
  // Far beyond what the brute force reaches: a full 2^40 network has 2^39 comparators per step.
  const index_t huge = index_t{1} << 40;
  EXPECT_EQ((step{40, 39}).comparators_below(huge), huge / 2);
  EXPECT_EQ((step{40, 0}).comparators_below(huge + 1), huge / 2 + 1);
  EXPECT_EQ((step{41, 40}).comparators_below(huge + 3), huge);
}

TEST(Network, CompareExchangePutsTheSmallerKeyFirst) {
  int a = 2, b = 1;
  compare_exchange(a, b, ascending_less{});
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 2);
  compare_exchange(a, b, descending_less{});
  EXPECT_EQ(a, 2);
  EXPECT_EQ(b, 1);
  // Equivalent keys are left where they are: -0.0 and +0.0 keep their positions and signs.
  double negative_zero = -0.0, positive_zero = 0.0;
  compare_exchange(negative_zero, positive_zero, ascending_less{});
  EXPECT_TRUE(std::signbit(negative_zero));
  EXPECT_FALSE(std::signbit(positive_zero));
}

// 0-1 principle: a comparator network sorts every input iff it sorts every input of zeros and
// ones. Running all 2^n of them proves the flip form (with comparators past n skipped) sorts
// every non-power-of-two length up to 16.
TEST(Network, SortsEveryZeroOneInputUpTo16Keys) {
  for (index_t n = 1; n <= 16; ++n) {
    const unsigned k = ceil_log2(n);
    const std::vector<step> schedule = reference_schedule(k);
    std::vector<int> keys(n);
    for (std::uint32_t pattern = 0; pattern < (std::uint32_t{1} << n); ++pattern) {
      for (index_t i = 0; i < n; ++i)
        keys[i] = (pattern >> i) & 1;
      for (const step st : schedule) {
        for (index_t c = 0, end = st.comparators_below(n); c < end; ++c) {
          const index_t lo = st.lower_index(c), hi = st.upper_index(lo);
          if (hi < n) compare_exchange(keys[lo], keys[hi], ascending_less{});
        }
      }
      const int ones = std::popcount(pattern);
      for (index_t i = 0; i < n; ++i) {
        ASSERT_EQ(keys[i], i >= n - ones ? 1 : 0)
            << "n=" << n << " pattern=0x" << std::hex << pattern << std::dec << " index " << i;
      }
    }
  }
}

}  // namespace
}  // namespace bitonic::network
