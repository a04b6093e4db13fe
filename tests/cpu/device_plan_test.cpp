// Optimized plans shaped for a device (plan::device_shape). Blocked passes: runs of passes that
// stay inside cache-sized blocks run block by block. Checked here on the CPU executor, which runs
// the same order as the GPU's: the blocked range is well formed, and the sort still matches
// std::sort, with blocks small enough that every length below meets several of them. A first pass
// split in two (as on a device with more SMs than tiles) sorts as the whole one does, and so do
// plans with merged stages (on a device that holds several tiles at once) and plans that merge
// out of place through a scratch buffer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "api/options.hpp"
#include "common_test.hpp"
#include "cpu/execute.hpp"
#include "kernels/tuning.hpp"
#include "network/key_order.hpp"
#include "plan/plan.hpp"

namespace bitonic::test {
namespace {

using tools::distribution;

// Runs optimized plan p on the CPU executor over case c's keys in `direction`, against std::sort.
template <class Key>
void expect_plan_sorts_on_cpu(const plan::plan& p, const reference_case<Key>& c, order direction) {
  std::vector<Key> keys = c.input;
  api::with_order(direction, [&](auto less) { cpu::execute(p, keys.data(), less); });
  EXPECT_TRUE(matches_reference(keys, c.expected_for(direction)))
      << describe_case<Key>(c.n, c.d, c.seed, direction, algorithm::optimized) << '\n'
      << plan::describe(p);
}

TEST(BlockedPlan, BlocksInFlightFillThreeQuartersOfTheCache) {
  static_assert(plan::blocks_in_flight == 2, "the sizes below are for two blocks at once");
  constexpr std::size_t h100_l2 = std::size_t{50} << 20;  // what the H100 80GB reports
  EXPECT_EQ(plan::cache_block_log2(h100_l2, 4), 22u);
  EXPECT_EQ(plan::cache_block_log2(h100_l2, 8), 21u);
  // 4 MiB: 3 MiB for two blocks, 1.5 MiB each, so 2^18 keys of 4 bytes.
  EXPECT_EQ(plan::cache_block_log2(std::size_t{4} << 20, 4), 18u);
  EXPECT_EQ(plan::cache_block_log2(0, 4), 0u);
  plan::plan p = plan::make_plan(algorithm::optimized, std::size_t{1} << 20, 4,
                                 {plan::cache_block_log2(0, 4)});
  EXPECT_TRUE(p.blocked.empty()) << "no cache, no blocks";
}

TEST(BlockedPlan, RunsStayInsideBlocksAndAddNoPass) {
  for (const std::size_t key_bytes : {std::size_t{4}, std::size_t{8}}) {
    for (unsigned k = 1; k <= 30; ++k) {
      const std::size_t n = (std::size_t{1} << k) - (k % 3);
      const std::size_t unblocked =
          plan::make_plan(algorithm::optimized, n, key_bytes).passes.size();
      for (const unsigned block_log2 : {15u, 18u, 22u}) {
        plan::plan p = plan::make_plan(algorithm::optimized, n, key_bytes, {block_log2});
        const std::string where = "n=" + std::to_string(n) +
                                  " key_bytes=" + std::to_string(key_bytes) + " block 2^" +
                                  std::to_string(block_log2) + "\n" + plan::describe(p);
        EXPECT_EQ(p.passes.size(), unblocked) << where;
        if (p.log2_size <= block_log2) {
          EXPECT_TRUE(p.blocked.empty()) << where << "the keys fit one block";
          continue;
        }
        ASSERT_FALSE(p.blocked.empty()) << where;
        EXPECT_EQ(p.blocked.front().first, 0u) << where << "the first pass and early stages";
        std::size_t next_free = 0;
        for (const plan::blocked_passes& b : p.blocked) {
          EXPECT_EQ(b.block_log2, block_log2) << where;
          EXPECT_GE(b.first, next_free) << where << "runs overlap or are out of order";
          EXPECT_GT(b.count, 1u) << where;
          ASSERT_LE(b.first + b.count, p.passes.size()) << where;
          for (std::size_t i = b.first; i < b.first + b.count; ++i) {
            EXPECT_LE(p.passes[i].reach_log2(), block_log2) << where << "pass " << i;
          }
          if (b.first + b.count < p.passes.size()) {
            EXPECT_GT(p.passes[b.first + b.count].reach_log2(), block_log2)
                << where << "a run stops short";
          }
          next_free = b.first + b.count;
        }
        // Past the block, a stage whose wide steps split at the block width at no cost adds a
        // run (its gathers below the block and its tail); an even split may add others.
        const unsigned tile_log2 = tuning::optimized_tile_log2(key_bytes);
        const unsigned per_pass = tuning::optimized_gather_steps_max(key_bytes);
        const auto gathers = [&](unsigned steps) { return (steps + per_pass - 1) / per_pass; };
        std::size_t split_stages = 0;
        for (unsigned s = block_log2 + 1; s <= p.log2_size; ++s) {
          split_stages +=
              gathers(s - block_log2) + gathers(block_log2 - tile_log2) == gathers(s - tile_log2);
        }
        EXPECT_GE(p.blocked.size(), 1 + split_stages) << where;
      }
    }
  }
}

// Gathers of more rows than fit 128-byte segments are slow over DRAM (PERFORMANCE.md log 25):
// plans use them only while all keys fit one cache block, and only where they save a pass.
TEST(BlockedPlan, ShortSegmentGathersOnlyInTheCache) {
  for (const std::size_t key_bytes : {std::size_t{4}, std::size_t{8}}) {
    const unsigned full_segments = tuning::optimized_gather_full_segment_steps_max(key_bytes);
    const unsigned block_log2 = key_bytes == 4 ? 22 : 21;  // the H100's
    for (unsigned k = 15; k <= 28; ++k) {
      const std::size_t n = (std::size_t{1} << k) - (k % 2);
      for (const plan::device_shape device :
           {plan::device_shape{0, 132}, plan::device_shape{block_log2, 132}}) {
        const plan::plan p = plan::make_plan(algorithm::optimized, n, key_bytes, device);
        const bool in_cache = device.block_log2 != 0 && p.log2_size <= device.block_log2;
        for (const plan::pass& ps : p.passes) {
          if (ps.kind == plan::pass_kind::gather_steps && !in_cache) {
            EXPECT_LE(ps.steps(), full_segments) << plan::describe(p);
          }
        }
      }
    }
  }
  // int32 2^20 on an H100: the plan for few tiles gathers down to 2^10, stages 19 and 20 in one
  // gather each (9 and 10 rows) instead of two.
  const plan::device_shape h100{22, 132};
  const std::size_t n = std::size_t{1} << 20;
  const plan::plan in_cache = plan::make_plan(algorithm::optimized, n, 4, h100);
  const plan::plan no_cache = plan::make_plan(algorithm::optimized, n, 4, {0, 132});
  EXPECT_EQ(in_cache.passes.size() + 2, no_cache.passes.size()) << plan::describe(in_cache);
  EXPECT_TRUE(std::any_of(in_cache.passes.begin(), in_cache.passes.end(), [](const plan::pass& ps) {
    return ps.steps() == 10;
  })) << plan::describe(in_cache);
}

TEST(BlockedPlan, OnlyTheOptimizedPathIsBlocked) {
  for (const algorithm algo : concrete_algorithms) {
    plan::plan p = plan::make_plan(algo, std::size_t{1} << 20, 4, {15});
    EXPECT_EQ(!p.blocked.empty(), algo == algorithm::optimized) << bitonic::to_string(algo);
  }
}

TEST(BlockedPlan, BlocksTakeTurnsInLanes) {
  const std::size_t n = (std::size_t{5} << 15) + 3;  // five whole blocks of 2^15 and a partial one
  const plan::plan p = plan::make_plan(algorithm::optimized, n, 4, {15});
  std::size_t blocked = 0;
  plan::for_each_pass(p, [&](const plan::pass&, const plan::pass_span& span) {
    if (!span.blocked) {
      EXPECT_EQ(span.offset, 0u);
      EXPECT_EQ(span.count, n);
      EXPECT_EQ(span.lane, 0u);
      return;
    }
    ++blocked;
    EXPECT_EQ(span.offset % (std::size_t{1} << 15), 0u);
    EXPECT_EQ(span.count, std::min(std::size_t{1} << 15, n - span.offset));
    EXPECT_EQ(span.lane, (span.offset >> 15) % plan::blocks_in_flight);
  });
  EXPECT_GT(blocked, 0u) << plan::describe(p);
}

template <class Key>
class BlockedSort : public ::testing::Test {};
TYPED_TEST_SUITE(BlockedSort, key_types, key_type_names);

TYPED_TEST(BlockedSort, MatchesStdSort) {
  using Key = TypeParam;
  std::vector<std::size_t> lengths = random_lengths(6, 16, 20, 20261121);
  lengths.insert(lengths.end(), {(std::size_t{1} << 16) + 1, std::size_t{1} << 18});  // odd, even
  for (const std::size_t n : lengths) {
    const reference_case<Key> c = make_reference_case<Key>(n, distribution::uniform);
    for (const order direction : all_orders) {
      // Blocks of 2^15 keys; blocks of 2^17 and 8 resident tiles: stages merged up to 2^17 keys
      // while all keys fit one block, none past it; a block of 2^16 keys with scratch allowed:
      // past it every stage merged out of place (the CPU executor follows the passes between
      // the keys and the scratch and ends in the keys; odd and even numbers of merges).
      const std::pair<plan::device_shape, plan::scratch_use> shapes[] = {
          {{15}, plan::scratch_use::none},
          {{17, 4, 0, 8}, plan::scratch_use::none},
          {{16}, plan::scratch_use::allowed}};
      for (const auto& [device, scratch] : shapes) {
        const plan::plan p = plan::make_plan(algorithm::optimized, n, sizeof(Key), device, scratch);
        if (device.resident_tiles == 0 && scratch == plan::scratch_use::none) {
          ASSERT_FALSE(p.blocked.empty());
        }
        if (scratch == plan::scratch_use::allowed && n > (std::size_t{1} << 16)) {
          ASSERT_TRUE(p.needs_scratch()) << plan::describe(p);
        }
        expect_plan_sorts_on_cpu(p, c, direction);
      }
    }
  }
}

// 8-byte keys merge out of place from tuning::optimized<8>::merge_min_log2 even inside the cache
// block (an H100's: 2^21 keys, 132 SMs), the first pass split while the tiles are few; 4-byte
// keys and smaller sizes keep the in-place plans there, and no device (the CPU) none of it.
TEST(InCacheMergePlan, EightByteKeysFromTheTuningsSize) {
  const plan::device_shape h100{21, 132};
  const unsigned from = tuning::optimized<8>::merge_min_log2;
  ASSERT_GT(from, tuning::optimized<8>::tile_log2);
  ASSERT_EQ(tuning::optimized<4>::merge_min_log2, 0u);
  const auto plan_for = [&](std::size_t n, std::size_t key_bytes, plan::device_shape device) {
    return plan::make_plan(algorithm::optimized, n, key_bytes, device, plan::scratch_use::allowed);
  };
  const auto first_passes = [](const plan::plan& p) {
    return std::count_if(p.passes.begin(), p.passes.end(), [](const plan::pass& ps) {
      return ps.kind == plan::pass_kind::sort_tiles;
    });
  };
  const plan::plan below = plan_for(std::size_t{1} << (from - 1), 8, h100);
  EXPECT_FALSE(below.needs_scratch()) << plan::describe(below);
  const plan::plan few = plan_for((std::size_t{1} << (from - 1)) + 1, 8, h100);
  ASSERT_TRUE(few.needs_scratch()) << plan::describe(few);
  EXPECT_EQ(few.passes.back().kind, plan::pass_kind::merge_stage) << plan::describe(few);
  EXPECT_EQ(first_passes(few), 2) << plan::describe(few);  // 65 tiles (8-byte), 132 SMs
  const plan::plan many = plan_for(std::size_t{1} << 21, 8, h100);
  EXPECT_EQ(many.passes.back().kind, plan::pass_kind::merge_stage) << plan::describe(many);
  EXPECT_EQ(first_passes(many), 1) << plan::describe(many);
  EXPECT_FALSE(plan_for(std::size_t{1} << 21, 4, {22, 132}).needs_scratch());
  EXPECT_FALSE(plan_for(std::size_t{1} << 20, 8, {}).needs_scratch());
}

// Those plans on the CPU executor: odd and even numbers of merges after a split first pass (on a
// device with SMs enough for both sizes' tiles), words in memory between the passes (NaN and -0.0
// among the double keys).
template <class Key>
void expect_in_cache_merge_plans_sort() {
  const unsigned from = tuning::optimized<8>::merge_min_log2;
  for (const std::size_t n :
       {(std::size_t{1} << (from - 1)) + 1, (std::size_t{1} << from) + 12345}) {
    for (const distribution d : {distribution::uniform, distribution::nan, distribution::few}) {
      const reference_case<Key> c = make_reference_case<Key>(n, d);
      const plan::plan p = plan::make_plan(algorithm::optimized, n, sizeof(Key), {21, 300},
                                           plan::scratch_use::allowed);
      ASSERT_EQ(std::count_if(
                    p.passes.begin(), p.passes.end(),
                    [](const plan::pass& ps) { return ps.kind == plan::pass_kind::sort_tiles; }),
                2)
          << plan::describe(p);
      ASSERT_TRUE(p.needs_scratch()) << plan::describe(p);
      for (const order direction : all_orders)
        expect_plan_sorts_on_cpu(p, c, direction);
    }
  }
}

TEST(InCacheMergePlan, SortsOnTheCpuExecutor) {
  expect_in_cache_merge_plans_sort<std::int64_t>();
  expect_in_cache_merge_plans_sort<double>();
}

template <class Key>
class SplitFirstPassSort : public ::testing::Test {};
TYPED_TEST_SUITE(SplitFirstPassSort, key_types, key_type_names);

TYPED_TEST(SplitFirstPassSort, MatchesStdSort) {
  using Key = TypeParam;
  std::vector<std::size_t> lengths = random_lengths(6, 10, 17, 20261122);
  lengths.insert(lengths.end(), {2, 1023, 1024, 1025, 2047, 2049, 16383, 16384, 16385});
  for (const std::size_t n : lengths) {
    for (const distribution d : {distribution::uniform, distribution::organ}) {
      const reference_case<Key> c = make_reference_case<Key>(n, d);
      for (const order direction : all_orders) {
        expect_plan_sorts_on_cpu(
            plan::make_plan(algorithm::optimized, n, sizeof(Key), {0, 1u << 20}), c, direction);
      }
    }
  }
}

}  // namespace
}  // namespace bitonic::test
