// The select path's plan (plan/topk_plan.hpp): parts per pass for the bench's shapes, worked out
// by hand, and for many random shapes the properties the kernel relies on: parts shrink every
// pass to a last pass of one part, parts hold at least half the minimum of inputs, no pass asks
// for more blocks than the device's target, and the scratch holds what each pass writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/tuning.hpp"
#include "plan/topk_plan.hpp"

namespace bitonic {
namespace {

using parts = std::vector<std::size_t>;

TEST(TopKPlan, BenchShapesOnAnH100) {
  const plan::select_plan one_row = plan::make_select_plan(1, std::size_t{1} << 27, 1000, 132);
  EXPECT_EQ(one_row.k_log2, 10u);
  EXPECT_EQ(one_row.parts, (parts{1056, 66, 5, 1}));
  EXPECT_EQ(one_row.scratch_words(1), (1056u + 66u) * 1024u);
  EXPECT_EQ(one_row.candidates(1, 2), 5u * 1024u);
  EXPECT_EQ(one_row.candidates(1, 3), 0u);

  const plan::select_plan short_rows = plan::make_select_plan(16384, 4096, 64, 132);
  EXPECT_EQ(short_rows.parts, parts{1});
  EXPECT_EQ(short_rows.scratch_words(16384), 0u);

  const plan::select_plan k2048 = plan::make_select_plan(2, 70001, 2048, 132);
  EXPECT_EQ(k2048.k_log2, 11u);
  EXPECT_EQ(k2048.parts, (parts{3, 1}));
  EXPECT_EQ(k2048.scratch_words(2), 2u * 3u * 2048u);

  EXPECT_EQ(plan::make_select_plan(1, 2, 1, 132).parts, parts{1});
  EXPECT_EQ(plan::make_select_plan(1, 2, 1, 132).k_log2, 0u);
  EXPECT_EQ(plan::make_select_plan(1, std::size_t{1} << 20, 100, 0).parts.back(), 1u);
}

// The radix selection replaces the passes before the last where there are several and the keys
// fit tuning::topk_radix::max_keys (2^22).
TEST(TopKPlan, RadixSelectionWhereThePassesChainAndTheKeysFitTheL2) {
  const auto radix = [](std::size_t batch, std::size_t n, std::size_t k) {
    return plan::selects_by_radix(plan::make_select_plan(batch, n, k, 132), batch, n);
  };
  EXPECT_TRUE(radix(1, std::size_t{1} << 20, 2048));
  EXPECT_TRUE(radix(2, 70001, 2048));
  EXPECT_TRUE(radix(1, std::size_t{1} << 22, 1));
  EXPECT_FALSE(radix(1, (std::size_t{1} << 22) + 1, 1000));  // past the L2's bound
  EXPECT_TRUE(radix(2, std::size_t{1} << 21, 2048));         // 2^22 keys in all
  EXPECT_FALSE(radix(3, std::size_t{1} << 21, 2048));        // more
  EXPECT_FALSE(radix(1, std::size_t{1} << 24, 100));
  EXPECT_FALSE(radix(64, 131072, 50));   // 2^23 keys
  EXPECT_FALSE(radix(16384, 4096, 64));  // one pass
  EXPECT_FALSE(radix(1, 5000, 100));     // one pass
  EXPECT_EQ(plan::radix_scratch_words(3, 100), 3u * (tuning::topk_radix::state_words + 100u));
}

TEST(TopKPlan, PartsShrinkToOneAndScratchHoldsEveryPass) {
  using tuning = tuning::topk_select;
  std::mt19937_64 rng(20261125);  // seed printed by the failures' traces below
  for (int c = 0; c < 20000; ++c) {
    const std::size_t batch = std::size_t{1} << (rng() % 16),
                      n = 2 + rng() % (std::size_t{1} << 28);
    const std::size_t k = 1 + rng() % std::min<std::size_t>(n, 2048);
    const unsigned sms = 1 + unsigned(rng() % 200);
    SCOPED_TRACE(testing::Message() << "batch=" << batch << " n=" << n << " k=" << k
                                    << " sms=" << sms << " (seed 20261125, case " << c << ")");
    const plan::select_plan p = plan::make_select_plan(batch, n, k, sms);
    ASSERT_FALSE(p.parts.empty());
    ASSERT_LE(p.parts.size(), 8u);
    ASSERT_EQ(p.parts.back(), 1u);
    ASSERT_GE(std::size_t{1} << p.k_log2, k);
    ASSERT_LT(std::size_t{1} << p.k_log2, 2 * k);
    const std::size_t kept = std::size_t{1} << p.k_log2;
    const std::size_t min_part = std::max(tuning::part_keys_per_kept * kept, tuning::min_part_keys);
    std::size_t m = n;
    for (std::size_t i = 0; i < p.parts.size(); ++i) {
      if (i + 1 < p.parts.size()) {
        ASSERT_GT(p.parts[i], p.parts[i + 1]);
        ASSERT_GE(m, p.parts[i] * (min_part / 2))
            << "pass " << i;  // parts of half a minimum or more
        ASSERT_LE(batch * p.parts[i], std::size_t{sms} * tuning::blocks_per_sm) << "pass " << i;
        ASSERT_LE(p.candidates(batch, i), i % 2 == 0
                                              ? p.candidates(batch, 0)
                                              : p.scratch_words(batch) - p.candidates(batch, 0));
      }
      m = p.parts[i] * kept;
    }
  }
}

}  // namespace
}  // namespace bitonic
