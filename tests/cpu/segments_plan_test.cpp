// The segmented sorts' binning (kernels/segments.hpp's segment_class) and plan
// (plan/segments_plan.hpp): classes of lengths worked out by hand, and for random counts the
// properties the tile kernel relies on: each class's bins and blocks follow the previous class's,
// a class's blocks hold all its segments and no block is empty.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>

#include "kernels/segments.hpp"
#include "kernels/tuning.hpp"
#include "plan/segments_plan.hpp"

namespace bitonic {
namespace {

using kernels::segments::segment_class;
constexpr unsigned classes = plan::segment_classes;
constexpr std::uint64_t tile = tuning::segment_tiles::tile;

TEST(SegmentsPlan, ClassesOfLengths) {
  EXPECT_EQ(segment_class(0, false), 0u);
  EXPECT_EQ(segment_class(1, false), 0u);
  EXPECT_EQ(segment_class(0, true), 0u);
  EXPECT_EQ(segment_class(1, true), 1u);  // argsort writes index 0
  EXPECT_EQ(segment_class(2, false), 1u);
  EXPECT_EQ(segment_class(3, false), 2u);
  EXPECT_EQ(segment_class(4, false), 2u);
  EXPECT_EQ(segment_class(5, false), 3u);
  EXPECT_EQ(segment_class(300, false), 9u);
  EXPECT_EQ(segment_class(tile - 1, false), classes - 1);
  EXPECT_EQ(segment_class(tile, false), classes - 1);
  EXPECT_EQ(segment_class(tile + 1, false), classes);  // long: sorted on its own
  EXPECT_EQ(segment_class(std::uint64_t{1} << 40, true), classes);
  for (std::uint64_t m = 2; m <= tile; ++m) {
    const unsigned c = segment_class(m, false);
    ASSERT_LE(m, std::uint64_t{1} << c) << m;
    ASSERT_GT(m, std::uint64_t{1} << (c - 1)) << m;
  }
}

TEST(SegmentsPlan, HandWorked) {
  std::array<std::uint64_t, classes> counts{};
  counts[0] = 100;   // fewer than 2 keys: no bins, no blocks
  counts[1] = 4097;  // 4096 pairs a block: 2 blocks
  counts[13] = 3;    // one segment a block
  const plan::segments_plan p = plan::make_segments_plan(counts);
  EXPECT_EQ(plan::segments_per_block(1), 4096u);
  EXPECT_EQ(plan::segments_per_block(13), 1u);
  EXPECT_EQ(p.counts[0], 0u);
  EXPECT_EQ(p.first_segment[1], 0u);
  EXPECT_EQ(p.first_segment[2], 4097u);
  EXPECT_EQ(p.first_segment[13], 4097u);
  EXPECT_EQ(p.short_segments(), 4100u);
  EXPECT_EQ(p.first_block[2], 2u);
  EXPECT_EQ(p.first_block[13], 2u);
  EXPECT_EQ(p.blocks(), 5u);
  EXPECT_EQ(plan::make_segments_plan({}).blocks(), 0u);
}

TEST(SegmentsPlan, RandomCounts) {
  const std::uint64_t seed = 20261125;
  std::mt19937_64 random(seed);
  for (int round = 0; round < 2000; ++round) {
    std::array<std::uint64_t, classes> counts{};
    for (std::uint64_t& count : counts)
      count = random() % 4 == 0 ? 0 : random() % 100000;
    const plan::segments_plan p = plan::make_segments_plan(counts);
    std::uint64_t segments = 0, blocks = 0;
    for (unsigned c = 1; c < classes; ++c) {
      ASSERT_EQ(p.first_segment[c], segments) << "seed " << seed << " round " << round;
      ASSERT_EQ(p.first_block[c], blocks) << "seed " << seed << " round " << round;
      const std::uint64_t class_blocks = p.first_block[c + 1] - p.first_block[c];
      // All its segments fit its blocks, and its last block is not empty.
      ASSERT_GE(class_blocks * plan::segments_per_block(c), counts[c]);
      ASSERT_LT((class_blocks == 0 ? 0 : class_blocks - 1) * plan::segments_per_block(c),
                std::max<std::uint64_t>(counts[c], 1));
      segments += counts[c];
      blocks += class_blocks;
    }
    ASSERT_EQ(p.short_segments(), segments);
    ASSERT_EQ(p.blocks(), blocks);
  }
}

}  // namespace
}  // namespace bitonic
