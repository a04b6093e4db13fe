// The optimized path's gather and tail kernels, one pass at a time, against the CPU executor
// running the same comparators: every gather shape (steps per pass 1..gather_steps_max, starting
// with a stage's flip or not, down to a tile's or a warp's width) and the tails on tiles and on
// warps, for 4- and 8-byte keys, on row blocks (tiles) that
// are full and on a last one that is cut short by n. Sorting through the
// public API reaches the deep shapes only past 2^25 keys; here each shape runs on a few row blocks.
// The steps need no sorted input: any keys through the same comparators give the same result.
// Also the first pass (whole tiles sorted, whole or split in two); the merges of stages past the
// tile, in place and out of place, bit for bit against runs sorted by the kernels' words; and
// whole plans against std::sort: run block by block (plan::make_plan with a small block), with
// the first pass split, with merged stages, merging out of place through a scratch buffer, and
// the in-place plan for this device's cache past one block.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "api/options.hpp"
#include "common_test.hpp"
#include "cpu/execute.hpp"
#include "device_memory.hpp"
#include "dispatch/run_plan.cuh"
#include "kernels/optimized_cluster_sort.cuh"
#include "kernels/optimized_gather.cuh"
#include "kernels/optimized_merge.cuh"
#include "kernels/optimized_sort_tile.cuh"
#include "kernels/optimized_tail.cuh"
#include "kernels/tuning.hpp"
#include "network/key_order.hpp"
#include "plan/plan.hpp"
#include "runtime/device.hpp"

namespace bitonic::test {
namespace {

using network::index_t;
using network::step;

// Sorts every block of 2^block_log2 keys by the words the kernels compare (ordered_word under
// Less): the order in which the GPU leaves sorted runs, a refinement of Less (-0.0 before +0.0
// ascending) with a single result, so that a merge's output can be compared bit for bit.
template <class Key, class Less>
bool words_less(Key a, Key b) {
  return Less{}(ordered_word<Key>::encode(a), ordered_word<Key>::encode(b));
}

template <class Key, class Less>
void sort_blocks_by_words(std::vector<Key>& keys, unsigned block_log2) {
  const std::size_t block = std::size_t{1} << block_log2;
  for (std::size_t b = 0; b < keys.size(); b += block) {
    std::sort(keys.begin() + b, keys.begin() + std::min(keys.size(), b + block),
              words_less<Key, Less>);
  }
}

template <class Key>
bool same_bits(const std::vector<Key>& a, const std::vector<Key>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Key)) == 0;
}

template <class Key, class Less, class Launch>
void expect_pass_matches_cpu(std::size_t n, step first, step last, Launch launch,
                             const char* what) {
  const std::uint64_t seed = case_seed(n, distribution::uniform) + first.ordinal();
  const std::vector<Key> input = tools::generate<Key>(n, distribution::uniform, seed);
  device_array<Key> keys(n);
  keys.upload(input);
  launch(keys.get(), index_t{n}, kernels::key_rows{n}, first, last, Less{}, cudaStream_t{});
  BITONIC_CUDA_CHECK(cudaGetLastError());
  std::vector<Key> expected = input;
  cpu::run_steps(expected.data(), n, first, last, 0, Less{});
  EXPECT_TRUE(keys.download() == expected)
      << what << " " << tools::type_name<Key>() << " n=" << n << " steps (" << first.stage << ','
      << first.distance_log2 << ")..(" << last.stage << ',' << last.distance_log2
      << ") seed=" << seed;
}

template <class Key, class Less>
void expect_gather_shape(unsigned lo, unsigned rows, unsigned tile_log2) {
  const unsigned hi = lo + rows - 1;
  const std::size_t row_block = std::size_t{1} << (hi + 1);
  for (const bool flip : {true, false}) {
    const unsigned stage = flip ? hi + 1 : hi + 2;
    for (const std::size_t n : {2 * row_block, row_block + row_block / 3 + 77}) {
      expect_pass_matches_cpu<Key, Less>(
          n, step{stage, hi}, step{stage, lo},
          [tile_log2](Key* keys, index_t count, kernels::key_rows key_rows, step first, step last,
                      Less less, cudaStream_t stream) {
            kernels::optimized_gather::launch(keys, count, key_rows, first, last, tile_log2, less,
                                              stream);
          },
          tile_log2 == 0 ? "gather" : "gather on few-tiles tiles");
    }
  }
}

// Gathers of `rows` 1..max_rows steps down to a tile's width, and (as in plans for few tiles)
// of the rows whose row blocks hold a tile, down to a warp's keys, on whole tiles and on the
// few-tiles plans' gather tiles.
template <class Key, class Less>
void expect_gather_shapes(unsigned max_rows) {
  using T = tuning::optimized<sizeof(Key)>;
  for (const unsigned tile_log2 : {T::tile_log2, T::few_tiles_gather_log2}) {
    const unsigned most_rows = std::min(
        max_rows, tile_log2 == T::tile_log2 ? T::gather_steps_max : T::few_tiles_gather_steps_max);
    for (const unsigned lo : {tile_log2, T::warp_stages}) {
      const unsigned min_rows = lo >= tile_log2 ? 1 : tile_log2 - lo;
      for (unsigned rows = min_rows; rows <= most_rows; ++rows) {
        ASSERT_TRUE(kernels::optimized_gather::runs<Key>(step{lo + rows, lo + rows - 1},
                                                         step{lo + rows, lo}, tile_log2));
        expect_gather_shape<Key, Less>(lo, rows, tile_log2);
      }
    }
  }
}

// A stage's tail on tiles, and (as in plans for few tiles) on every warp's keys.
template <class Key, class Less>
void expect_tail() {
  using T = tuning::optimized<sizeof(Key)>;
  const unsigned stage = T::tile_log2 + 3;
  for (const unsigned steps : {T::tile_log2, T::warp_stages}) {
    for (const std::size_t n :
         {std::size_t{8} * T::tile_keys, std::size_t{5} * T::tile_keys + 123}) {
      expect_pass_matches_cpu<Key, Less>(
          n, step{stage, steps - 1}, step{stage, 0},
          [](auto... args) { kernels::optimized_tail::launch(args...); }, "tail");
    }
  }
}

TEST(KernelShapes, GatherFourByteKeys) {
  expect_gather_shapes<std::int32_t, ascending_less>(tuning::optimized<4>::gather_steps_max);
}
TEST(KernelShapes, GatherEightByteKeys) {
  expect_gather_shapes<double, descending_less>(tuning::optimized<8>::gather_steps_max);
}
TEST(KernelShapes, TailFourByteKeys) {
  expect_tail<std::int32_t, ascending_less>();
}
TEST(KernelShapes, TailEightByteKeys) {
  expect_tail<double, descending_less>();
}

// The first pass (optimized_sort_tile): whole, partial and single tiles against the CPU
// executor's stages 1..min(k, tile_log2), every distribution (NaNs and signed zeros for floats);
// split, its two halves one after the other (and the first half alone): stages 1..warp_stages on
// every warp's keys, then the rest.
template <class Key, class Less>
void expect_sorted_tiles(std::size_t n, distribution d, bool split) {
  using T = tuning::optimized<sizeof(Key)>;
  const unsigned last_stage = std::min(network::ceil_log2(n), T::tile_log2);
  std::vector<std::pair<step, step>> passes{{step{1, 0}, step{last_stage, 0}}};
  if (split) {
    passes = {{step{1, 0}, step{std::min(last_stage, T::warp_stages), 0}}};
    if (last_stage > T::warp_stages) {
      passes.push_back({step{T::warp_stages + 1, T::warp_stages}, step{last_stage, 0}});
    }
  }
  const std::uint64_t seed = case_seed(n, d);
  const std::vector<Key> input = tools::generate<Key>(n, d, seed);
  device_array<Key> keys(n);
  keys.upload(input);
  std::vector<Key> expected = input;
  for (const auto& [first, last] : passes) {
    ASSERT_TRUE(kernels::optimized_sort_tile::runs<Key>(first, last, n)) << n;
    kernels::optimized_sort_tile::launch<Key>(keys.get(), keys.get(), index_t{n},
                                              kernels::key_rows{n}, first, last, Less{},
                                              cudaStream_t{});
    cpu::run_steps(expected.data(), n, first, last, 0, Less{});
  }
  BITONIC_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(matches_reference(keys.download(), expected))
      << "sorted tiles " << tools::type_name<Key>() << " n=" << n << " " << tools::to_string(d)
      << (split ? " split" : "") << " seed=" << seed;
}

// Stages 1..warp_stages alone: every 2^warp_stages-key block sorted ascending.
template <class Key, class Less>
void expect_sorted_warps(std::size_t n) {
  constexpr unsigned warp_stages = tuning::optimized<sizeof(Key)>::warp_stages;
  expect_pass_matches_cpu<Key, Less>(
      n, step{1, 0}, step{warp_stages, 0},
      [](Key* keys, index_t count, kernels::key_rows rows, step first, step last, Less less,
         cudaStream_t stream) {
        kernels::optimized_sort_tile::launch<Key>(keys, keys, count, rows, first, last, less,
                                                  stream);
      },
      "sorted warps");
}

template <class Key>
void expect_sorted_tiles_all_cases() {
  constexpr std::size_t tile = tuning::optimized<sizeof(Key)>::tile_keys;
  for (const std::size_t n :
       {std::size_t{2}, std::size_t{3}, std::size_t{1000}, std::size_t{1025}, std::size_t{3000},
        std::size_t{5000}, tile - 1, tile, 4 * tile, 3 * tile + 777}) {
    for (const distribution d : tools::all_distributions) {
      for (const bool split : {false, true}) {
        expect_sorted_tiles<Key, ascending_less>(n, d, split);
        expect_sorted_tiles<Key, descending_less>(n, d, split);
      }
    }
  }
  expect_sorted_warps<Key, ascending_less>(5 * 1024 + 1);
  expect_sorted_warps<Key, descending_less>(4 * tile);
}

TEST(KernelShapes, SortTiles) {
  expect_sorted_tiles_all_cases<std::int32_t>();
  expect_sorted_tiles_all_cases<std::uint32_t>();
  expect_sorted_tiles_all_cases<float>();
  expect_sorted_tiles_all_cases<std::int64_t>();
  expect_sorted_tiles_all_cases<std::uint64_t>();
  expect_sorted_tiles_all_cases<double>();
}

// A whole plan made for `device` on the GPU executor, against std::sort; with a scratch buffer
// where the plan needs one.
template <class Key, class Less>
void expect_plan_sorts(std::size_t n, plan::device_shape device, const char* what,
                       plan::scratch_use scratch = plan::scratch_use::none,
                       distribution d = distribution::uniform) {
  const std::uint64_t seed = case_seed(n, d);
  const std::vector<Key> input = tools::generate<Key>(n, d, seed);
  plan::plan p = plan::make_plan(algorithm::optimized, n, sizeof(Key), device, scratch);
  if (device.block_log2 != 0 && p.log2_size > device.block_log2) {
    const bool merges = scratch == plan::scratch_use::allowed;
    ASSERT_EQ(p.needs_scratch(), merges) << plan::describe(p);
    ASSERT_EQ(p.blocked.empty(), merges) << plan::describe(p);
  }
  if (device.resident_tiles != 0 && p.blocked.empty()) {
    ASSERT_TRUE(std::any_of(p.passes.begin(), p.passes.end(), [](const plan::pass& ps) {
      return ps.kind == plan::pass_kind::merge_stages;
    })) << plan::describe(p);
  }
  device_array<Key> keys(n), other(p.needs_scratch() ? p.scratch_keys : 0);
  keys.upload(input);
  dispatch::run_plan(p, keys.get(), other.get(), Less{}, cudaStream_t{});
  BITONIC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<Key> expected = input;
  std::sort(expected.begin(), expected.end(), Less{});
  EXPECT_TRUE(matches_reference(keys.download(), expected))
      << what << " " << tools::type_name<Key>() << " n=" << n << " " << tools::to_string(d)
      << " seed=" << seed << "\n"
      << plan::describe(p);
}

// Whole plans with the first pass split (plan::device_shape with more SMs than tiles): sizes
// around a warp's keys and a tile, both orders.
template <class Key, class Less>
void expect_split_plan_sorts(std::size_t n) {
  expect_plan_sorts<Key, Less>(n, {0, 1u << 20}, "split plan");
}

TEST(KernelShapes, SplitFirstPassPlans) {
  for (const std::size_t n :
       {std::size_t{1023}, std::size_t{1024}, std::size_t{1025}, std::size_t{1} << 13,
        (std::size_t{1} << 14) + 1, (std::size_t{1} << 17) + 4321}) {
    expect_split_plan_sorts<std::int32_t, ascending_less>(n);
    expect_split_plan_sorts<float, descending_less>(n);
    expect_split_plan_sorts<double, ascending_less>(n);
  }
}

// Blocked plans (plan::make_plan with a block), with blocks of 2^16 keys so that small inputs
// meet several blocks and runs of passes past the block.
template <class Key, class Less>
void expect_blocked_plan_sorts(std::size_t n) {
  expect_plan_sorts<Key, Less>(n, {16}, "blocked plan");
}

TEST(KernelShapes, BlockedPlans) {
  for (const std::size_t n : {std::size_t{1} << 19, (std::size_t{1} << 20) + 12345}) {
    expect_blocked_plan_sorts<std::int32_t, ascending_less>(n);
    expect_blocked_plan_sorts<float, descending_less>(n);
    expect_blocked_plan_sorts<std::uint64_t, ascending_less>(n);
  }
}

// Merged stages (optimized_merge): sorted tiles (by words, as the first pass leaves them), then
// stages tile_log2+1..last on the GPU, bit for bit against blocks of 2^last keys sorted by words:
// full, partial and missing second runs, a partial last tile, several blocks of 2^last keys,
// every distribution, both orders.
template <class Key, class Less>
void expect_merged_stages(std::size_t n, unsigned last_stage, distribution d) {
  const unsigned tile_log2 = tuning::optimized<sizeof(Key)>::tile_log2;
  const step first{tile_log2 + 1, tile_log2}, last{last_stage, 0};
  const std::uint64_t seed = case_seed(n, d) + last_stage;
  std::vector<Key> input = tools::generate<Key>(n, d, seed);
  sort_blocks_by_words<Key, Less>(input, tile_log2);
  device_array<Key> keys(n);
  keys.upload(input);
  ASSERT_TRUE(kernels::optimized_merge::runs<Key>(first, last));
  kernels::optimized_merge::launch(keys.get(), index_t{n}, first, last, Less{}, cudaStream_t{});
  BITONIC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<Key> expected = input;
  sort_blocks_by_words<Key, Less>(expected, last_stage);
  EXPECT_TRUE(same_bits(keys.download(), expected))
      << "merged stages " << tools::type_name<Key>() << " n=" << n << " stages " << first.stage
      << ".." << last_stage << " " << tools::to_string(d) << " seed=" << seed;
}

// Whole plans with merged stages: no cache known (4 resident tiles: merges in blocks of 4 tiles,
// one after the other) and all keys in one cache block (16 resident tiles: merges of up to 16).
TEST(KernelShapes, MergedStagePlans) {
  for (const std::size_t n : {(std::size_t{1} << 17) + 4321, (std::size_t{1} << 19) + 77}) {
    expect_plan_sorts<std::int32_t, ascending_less>(n, {0, 8, 0, 4}, "merge plan");
    expect_plan_sorts<float, descending_less>(n, {20, 8, 0, 16}, "merge plan");
    expect_plan_sorts<double, ascending_less>(n, {0, 8, 0, 4}, "merge plan");
    expect_plan_sorts<std::uint64_t, descending_less>(n, {20, 8, 0, 16}, "merge plan");
  }
}

// One stage merged out of place (optimized_merge::launch_stage): runs of 2^(stage - 1) keys sorted
// by words, the stage from one buffer into another on the GPU, bit for bit against runs of
// 2^stage sorted by words: one and several tiles a run, full, partial and missing second runs
// (copied), a partial last tile, every distribution, both orders; the input left as it was.
template <class Key, class Less>
void expect_merge_stage(std::size_t n, unsigned stage, distribution d) {
  const std::uint64_t seed = case_seed(n, d) + stage;
  std::vector<Key> input = tools::generate<Key>(n, d, seed);
  sort_blocks_by_words<Key, Less>(input, stage - 1);
  device_array<Key> from(n), to(n);
  device_array<index_t> splits(kernels::optimized_merge::split_count<Key>(n));
  from.upload(input);
  kernels::optimized_merge::launch_stage<Key>(static_cast<const Key*>(from.get()), to.get(),
                                              index_t{n}, kernels::key_rows{n}, stage, splits.get(),
                                              Less{}, cudaStream_t{});
  BITONIC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<Key> expected = input;
  sort_blocks_by_words<Key, Less>(expected, stage);
  EXPECT_TRUE(same_bits(to.download(), expected))
      << "merge stage " << tools::type_name<Key>() << " n=" << n << " stage " << stage << " "
      << tools::to_string(d) << " seed=" << seed;
  EXPECT_TRUE(same_bits(from.download(), input)) << "merge stage changed its input";
}

// Both merges of the stages past the tile on the same cases: in place, stages tile_log2+1..s
// (merged_stages); out of place, stage s alone (merge_stage).
template <class Key>
void expect_merges_all_cases() {
  constexpr unsigned tile_log2 = tuning::optimized<sizeof(Key)>::tile_log2;
  constexpr std::size_t tile = std::size_t{1} << tile_log2;
  const std::pair<std::size_t, unsigned> cases[] = {
      {2 * tile, tile_log2 + 1},        // one merge of two tiles
      {tile + 1, tile_log2 + 1},        // a second run of one key
      {8 * tile, tile_log2 + 3},        // three stages in one block
      {5 * tile + 777, tile_log2 + 3},  // a partial second run and last tile
      {11 * tile + 3, tile_log2 + 2},   // three blocks, the last without a second run (copied)
      {12 * tile - 1, tile_log2 + 2},   // three blocks of 2^(tile_log2 + 2)
      {10 * tile + 5, tile_log2 + 2},   // a block past n's last tile, its runs merging
      {3 * tile + 5, tile_log2 + 3},    // one run, shorter than the stage's: all copied
      {37 * tile + 5, tile_log2 + 5},   // 16 tiles a run, a partial second run
  };
  for (const auto& [n, stage] : cases) {
    for (const distribution d : tools::all_distributions) {
      expect_merged_stages<Key, ascending_less>(n, stage, d);
      expect_merged_stages<Key, descending_less>(n, stage, d);
      expect_merge_stage<Key, ascending_less>(n, stage, d);
      expect_merge_stage<Key, descending_less>(n, stage, d);
    }
  }
}

TEST(KernelShapes, MergesInPlaceAndOutOfPlace) {
  expect_merges_all_cases<std::int32_t>();
  expect_merges_all_cases<std::uint32_t>();
  expect_merges_all_cases<float>();
  expect_merges_all_cases<std::int64_t>();
  expect_merges_all_cases<std::uint64_t>();
  expect_merges_all_cases<double>();
}

// Two sorted arrays laid end to end, merged out of place as one pair (launch_merge with
// run_pairs::one: sort_host's out-of-core merge): first and second runs empty, of one key, around
// a tile and of many tiles, every distribution, both orders, bit for bit against std::merge by
// words; and once past partition_narrow_min_tiles tiles (8 lanes a tile).
template <class Key, class Less>
void expect_two_run_merge(std::size_t a_n, std::size_t b_n, distribution d) {
  namespace merge = kernels::optimized_merge;
  const std::size_t n = a_n + b_n;
  const std::uint64_t seed = case_seed(n, d) + a_n;
  std::vector<Key> input = tools::generate<Key>(n, d, seed);
  const auto middle = input.begin() + std::ptrdiff_t(a_n);
  std::sort(input.begin(), middle, words_less<Key, Less>);
  std::sort(middle, input.end(), words_less<Key, Less>);
  std::vector<Key> expected(n);
  std::merge(input.begin(), middle, middle, input.end(), expected.begin(), words_less<Key, Less>);
  device_array<Key> from(n), to(n);
  device_array<index_t> splits(merge::split_count<Key>(n));
  from.upload(input);
  merge::launch_merge<Key>(static_cast<const Key*>(from.get()), to.get(), index_t{n},
                           kernels::key_rows{n}, merge::run_pairs::one(a_n), splits.get(), Less{},
                           cudaStream_t{});
  BITONIC_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(same_bits(to.download(), expected))
      << "two-run merge " << tools::type_name<Key>() << " a=" << a_n << " b=" << b_n << " "
      << tools::to_string(d) << " seed=" << seed;
}

template <class Key>
void expect_two_run_merges() {
  constexpr std::size_t tile = std::size_t{1} << tuning::optimized<sizeof(Key)>::tile_log2;
  const std::size_t lengths[] = {0, 1, 2, 100, tile - 1, tile, tile + 1, 5 * tile + 321};
  for (const std::size_t a_n : lengths) {
    for (const std::size_t b_n : lengths) {
      if (a_n + b_n == 0) continue;
      for (const distribution d : tools::all_distributions) {
        expect_two_run_merge<Key, ascending_less>(a_n, b_n, d);
        expect_two_run_merge<Key, descending_less>(a_n, b_n, d);
      }
    }
  }
  const std::size_t many = (kernels::optimized_merge::partition_narrow_min_tiles + 3) * tile;
  expect_two_run_merge<Key, ascending_less>(many / 3 + 17, many - many / 3, distribution::few);
}

TEST(KernelShapes, TwoRunMerges) {
  expect_two_run_merges<std::int32_t>();
  expect_two_run_merges<float>();
  expect_two_run_merges<std::uint64_t>();
  expect_two_run_merges<double>();
}

// partition_kernel with 8 lanes a tile (launch_stage's choice from partition_narrow_min_tiles
// tiles on) finds the same splits as with a warp a tile, which the merge tests check through
// launch_stage: one, several and all tiles a run, ties (few and equal keys), both orders.
template <class Key, class Less>
void expect_narrow_partition(std::size_t n, unsigned stage, distribution d) {
  const std::uint64_t seed = case_seed(n, d) + stage;
  std::vector<Key> input = tools::generate<Key>(n, d, seed);
  sort_blocks_by_words<Key, Less>(input, stage - 1);
  device_array<Key> keys(n);
  keys.upload(input);
  const index_t count = kernels::optimized_merge::split_count<Key>(n);
  device_array<index_t> warp(count), narrow(count);
  for (const auto* splits : {&warp, &narrow})  // entries of copied tiles stay as they were
    BITONIC_CUDA_CHECK(cudaMemset(splits->get(), 0xff, count * sizeof(index_t)));
  const Key* const in = keys.get();
  const auto pairs = kernels::optimized_merge::run_pairs::stage(stage);
  const kernels::key_rows rows{n};
  kernels::optimized_merge::launch_partition<Key, 32>(in, static_cast<const Key*>(nullptr),
                                                      index_t{n}, rows, pairs, warp.get(), Less{},
                                                      cudaStream_t{});
  kernels::optimized_merge::launch_partition<Key, 8>(in, static_cast<const Key*>(nullptr),
                                                     index_t{n}, rows, pairs, narrow.get(), Less{},
                                                     cudaStream_t{});
  BITONIC_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(narrow.download(), warp.download())
      << "partition " << tools::type_name<Key>() << " n=" << n << " stage " << stage << " "
      << tools::to_string(d) << " seed=" << seed;
}

template <class Key>
void expect_narrow_partitions() {
  constexpr unsigned tile_log2 = tuning::optimized<sizeof(Key)>::tile_log2;
  const std::size_t n = (std::size_t{37} << tile_log2) + 1234;  // a partial last tile
  for (const unsigned stage : {tile_log2 + 1, tile_log2 + 3, tile_log2 + 6}) {
    for (const distribution d : {distribution::uniform, distribution::few, distribution::equal}) {
      expect_narrow_partition<Key, ascending_less>(n, stage, d);
      expect_narrow_partition<Key, descending_less>(n, stage, d);
    }
  }
}

TEST(KernelShapes, NarrowPartitionMatchesWarpPartition) {
  expect_narrow_partitions<std::int32_t>();
  expect_narrow_partitions<float>();
  expect_narrow_partitions<std::int64_t>();
  expect_narrow_partitions<double>();
}

// Whole plans that merge out of place (plan::scratch_use::allowed, with a cache block of 2^16
// keys so that small inputs have them): an odd and an even number of merges (the first pass
// writing to the scratch or in place), both orders.
template <class Key, class Less>
void expect_scratch_plan_sorts(std::size_t n, distribution d = distribution::uniform) {
  expect_plan_sorts<Key, Less>(n, {16}, "scratch plan", plan::scratch_use::allowed, d);
}

// Float keys also with NaNs and -0.0: these plans keep words in memory between their passes.
TEST(KernelShapes, ScratchPlans) {
  for (const std::size_t n :
       {(std::size_t{1} << 18) + 1, (std::size_t{1} << 19) + 12345, std::size_t{1} << 20}) {
    expect_scratch_plan_sorts<std::int32_t, ascending_less>(n);
    expect_scratch_plan_sorts<float, descending_less>(n);
    expect_scratch_plan_sorts<std::uint64_t, ascending_less>(n);
    expect_scratch_plan_sorts<double, descending_less>(n);
  }
  for (const distribution d : {distribution::nan, distribution::few, distribution::organ}) {
    expect_scratch_plan_sorts<float, ascending_less>((std::size_t{1} << 19) + 77, d);
    expect_scratch_plan_sorts<double, ascending_less>((std::size_t{1} << 18) + 5, d);
    expect_scratch_plan_sorts<double, descending_less>((std::size_t{1} << 19) + 77, d);
  }
}

// Whole plans of 8-byte keys that merge out of place inside the cache block (from
// tuning::optimized<8>::merge_min_log2; an H100's block, and its SMs or more): the first pass
// split in two while the tiles are few (its second part writing words, to the scratch where the
// merges are odd in number), whole beyond; every distribution, both orders.
template <class Key, class Less>
void expect_in_cache_merge_plan_sorts(std::size_t n, distribution d, unsigned sms = 132) {
  static_assert(sizeof(Key) == 8, "8-byte keys merge out of place inside the cache block");
  const plan::device_shape device{21, sms};
  const plan::plan p =
      plan::make_plan(algorithm::optimized, n, sizeof(Key), device, plan::scratch_use::allowed);
  ASSERT_TRUE(p.needs_scratch() && p.passes.back().kind == plan::pass_kind::merge_stage)
      << plan::describe(p);
  expect_plan_sorts<Key, Less>(n, device, "in-cache merge plan", plan::scratch_use::allowed, d);
}

TEST(KernelShapes, InCacheMergePlans) {
  const unsigned from = tuning::optimized<8>::merge_min_log2;
  for (const std::size_t n : {(std::size_t{1} << (from - 1)) + 1, (std::size_t{1} << from) - 3,
                              (std::size_t{1} << from) + 12345, (std::size_t{1} << 21) - 1}) {
    for (const unsigned sms : {132u, 300u}) {  // 300: the first pass split up to 2^20 + 2^19
      for (const distribution d : tools::all_distributions) {
        expect_in_cache_merge_plan_sorts<std::int64_t, ascending_less>(n, d, sms);
        expect_in_cache_merge_plan_sorts<double, descending_less>(n, d, sms);
      }
    }
    expect_in_cache_merge_plan_sorts<std::uint64_t, descending_less>(n, distribution::uniform);
    expect_in_cache_merge_plan_sorts<double, ascending_less>(n, distribution::nan);
  }
}

// Whole plans that split first (plan::device_shape::split_min_log2, with a cache block of 2^16
// keys so that small inputs have them), against std::sort: buckets of one tile (whose first pass
// decodes), of a few tiles (odd and even numbers of merges in one plan, later merges skipped)
// and, all keys equal, one bucket of all of them (every merge); every distribution, both orders.
// `refined`: the split's buckets cut again (device_shape::refine_min_log2, sample_refine.cuh),
// whose sub-buckets the first pass reads from the keys.
template <class Key, class Less>
void expect_split_bucket_plan_sorts(std::size_t n, distribution d, bool refined = false) {
  plan::device_shape device{16};
  device.split_min_log2 = 17;
  device.refine_min_log2 = refined ? 17 : 0;
  expect_plan_sorts<Key, Less>(n, device, refined ? "refined split plan" : "split plan",
                               plan::scratch_use::allowed, d);
}

TEST(KernelShapes, SplitBucketPlans) {
  for (const bool refined : {false, true}) {
    for (const std::size_t n :
         {(std::size_t{1} << 17) + 1, (std::size_t{1} << 21) + 333, (std::size_t{1} << 23) - 5}) {
      for (const distribution d : tools::all_distributions) {
        expect_split_bucket_plan_sorts<std::int32_t, ascending_less>(n, d, refined);
        expect_split_bucket_plan_sorts<float, descending_less>(n, d, refined);
        expect_split_bucket_plan_sorts<std::int64_t, descending_less>(n, d, refined);
        expect_split_bucket_plan_sorts<double, ascending_less>(n, d, refined);
      }
    }
  }
}

// Equality buckets of keys that are their own words (unsigned): a refined plan's first pass leaves
// them where they lie (the refinement wrote them to the keys), an unrefined one's copies them from
// the scratch; neither sorts them.
TEST(KernelShapes, EqualityBucketsOfUnsignedKeys) {
  for (const bool refined : {false, true}) {
    for (const std::size_t n : {(std::size_t{1} << 17) + 1, (std::size_t{1} << 21) + 333}) {
      for (const distribution d : {distribution::equal, distribution::few}) {
        expect_split_bucket_plan_sorts<std::uint32_t, ascending_less>(n, d, refined);
        expect_split_bucket_plan_sorts<std::uint32_t, descending_less>(n, d, refined);
        expect_split_bucket_plan_sorts<std::uint64_t, ascending_less>(n, d, refined);
        expect_split_bucket_plan_sorts<std::uint64_t, descending_less>(n, d, refined);
      }
    }
  }
}

// The in-place plan that sort() falls back to when the device has no memory for the scratch, for
// this device's cache, past one cache block (blocked passes, gathers split at the block).
TEST(KernelShapes, InPlacePlanPastTheCache) {
  const plan::device_shape device = api::current_device_shape(4);
  if (device.block_log2 == 0) GTEST_SKIP() << "no L2 cache block on this device";
  const std::size_t n = (std::size_t{2} << device.block_log2) + 12345;
  expect_plan_sorts<float, ascending_less>(n, device, "in-place plan");
  expect_plan_sorts<std::int32_t, descending_less>(n, device, "in-place plan");
}

// Batched plans of rows past a tile (plan::make_rows_plan) on the GPU executor, against std::sort
// of every row: merged out of place (the first pass, then a merge pass a stage, each row's runs
// merged on their own; rows of a power of two and of other lengths, whose missing keys end each
// row's positions) and the in-place plan that sort_batched falls back to without the scratch,
// blocked for this device's cache.
template <class Key, class Less>
void expect_rows_plan_sorts(plan::rows rows, plan::scratch_use scratch, distribution d) {
  const std::size_t n = rows.count * rows.length;
  const std::uint64_t seed = case_seed(n + rows.length, d);
  const std::vector<Key> input = tools::generate<Key>(n, d, seed);
  const unsigned block_log2 = api::current_device_shape(sizeof(Key)).block_log2;
  const plan::plan p = plan::make_rows_plan(rows, sizeof(Key), block_log2, scratch);
  ASSERT_EQ(p.needs_scratch(), scratch == plan::scratch_use::allowed) << plan::describe(p);
  device_array<Key> keys(n), other(p.needs_scratch() ? p.scratch_keys : 0);
  keys.upload(input);
  dispatch::run_plan(p, keys.get(), other.get(), Less{}, cudaStream_t{});
  BITONIC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<Key> expected = input;
  for (std::size_t r = 0; r < rows.count; ++r) {
    const auto row = expected.begin() + std::ptrdiff_t(r * rows.length);
    std::sort(row, row + std::ptrdiff_t(rows.length), Less{});
  }
  EXPECT_TRUE(matches_reference(keys.download(), expected))
      << "rows plan " << tools::type_name<Key>() << " " << rows.count << " rows of " << rows.length
      << " " << tools::to_string(d) << " seed=" << seed << "\n"
      << plan::describe(p);
}

TEST(KernelShapes, RowsPlans) {
  for (const plan::scratch_use scratch : {plan::scratch_use::allowed, plan::scratch_use::none}) {
    for (const std::size_t length : {(std::size_t{1} << 14) + 1, std::size_t{40000},
                                     std::size_t{1} << 16, std::size_t{100003}}) {
      const plan::rows rows{((std::size_t{1} << 23) >> std::bit_width(length - 1)) | 1, length};
      expect_rows_plan_sorts<std::int32_t, ascending_less>(rows, scratch, distribution::uniform);
      expect_rows_plan_sorts<float, descending_less>(rows, scratch, distribution::nan);
      expect_rows_plan_sorts<std::uint64_t, descending_less>(rows, scratch, distribution::few);
      expect_rows_plan_sorts<double, ascending_less>(rows, scratch, distribution::organ);
    }
    // three rows of 8-byte keys just past two tiles: the last tile of each row holds one key
    expect_rows_plan_sorts<std::int64_t, ascending_less>({3, (std::size_t{1} << 14) + 1}, scratch,
                                                         distribution::uniform);
  }
}

// The sort of small n on one cluster (optimized_cluster_sort): every shape (4..16 blocks of
// 2^12 four-byte keys; none for 8-byte keys), n a power of two, one past the previous
// power (mostly pads: blocks holding no key) and between, uniform and few distinct keys; one
// short of a power with every distribution; both orders; against std::sort.
template <class Key, class Less>
void expect_cluster_sorts(std::size_t n, distribution d) {
  const unsigned stages = network::ceil_log2(n);
  const std::uint64_t seed = case_seed(n, d);
  const std::vector<Key> input = tools::generate<Key>(n, d, seed);
  device_array<Key> keys(n);
  keys.upload(input);
  kernels::optimized_cluster_sort::launch(keys.get(), index_t{n}, stages, Less{}, cudaStream_t{});
  BITONIC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<Key> expected = input;
  std::sort(expected.begin(), expected.end(), Less{});
  EXPECT_TRUE(matches_reference(keys.download(), expected))
      << "cluster sort " << tools::type_name<Key>() << " n=" << n << " " << tools::to_string(d)
      << " seed=" << seed;
}

template <class Key>
void expect_cluster_sorts_all_cases() {
  using C = tuning::cluster_sort<sizeof(Key)>;
  for (unsigned k = C::stages_min; k <= C::stages_max; ++k) {
    const std::size_t power = std::size_t{1} << k;
    for (const distribution d : tools::all_distributions) {
      expect_cluster_sorts<Key, ascending_less>(power - 1, d);
      expect_cluster_sorts<Key, descending_less>(power - 1, d);
    }
    for (const std::size_t n : {power, power / 2 + 1, power / 2 + power / 3 + 7}) {
      expect_cluster_sorts<Key, ascending_less>(n, distribution::uniform);
      expect_cluster_sorts<Key, descending_less>(n, distribution::few);
    }
  }
}

TEST(KernelShapes, ClusterSort) {
  if (!runtime::launches_clusters()) GTEST_SKIP() << "no thread-block clusters on this device";
  expect_cluster_sorts_all_cases<std::int32_t>();
  expect_cluster_sorts_all_cases<std::uint32_t>();
  expect_cluster_sorts_all_cases<float>();
  static_assert(tuning::cluster_sort<8>::stages_max == 0, "test 8-byte keys when they have one");
}

// Small enough for compute-sanitizer (scripts/gpu-check runs the Sanitize* tests under it): both
// rounds of the gather kernel, with and without a flip, full and cut row blocks, and the tail.
TEST(SanitizeKernelShapes, SmallGathersAndTails) {
  expect_gather_shapes<std::int32_t, ascending_less>(5);
  expect_gather_shapes<double, descending_less>(4);
  // The shapes with 64 registers of keys a thread: 9 and 10 rows of 4-byte keys (64- and 32-byte
  // segments, swizzled shared memory), 7 and 8 rows of 8-byte keys.
  for (const unsigned rows : {9u, 10u}) {
    expect_gather_shape<std::int32_t, ascending_less>(tuning::optimized<4>::warp_stages, rows, 0);
  }
  for (const unsigned rows : {7u, 8u}) {  // 64- and 32-byte segments on the few-tiles tiles
    expect_gather_shape<std::int32_t, ascending_less>(tuning::optimized<4>::warp_stages, rows,
                                                      tuning::optimized<4>::few_tiles_gather_log2);
  }
  for (const unsigned tile_log2 : {0u, tuning::optimized<8>::few_tiles_gather_log2}) {
    for (const unsigned rows : {7u, 8u}) {
      expect_gather_shape<double, descending_less>(tuning::optimized<8>::warp_stages, rows,
                                                   tile_log2);
    }
  }
  expect_tail<std::int32_t, ascending_less>();
  expect_tail<double, descending_less>();
  expect_blocked_plan_sorts<std::int32_t, ascending_less>((std::size_t{1} << 17) + 3);
  expect_merged_stages<std::int32_t, descending_less>(5 * tuning::optimized<4>::tile_keys + 777,
                                                      tuning::optimized<4>::tile_log2 + 3,
                                                      distribution::uniform);
  expect_merged_stages<double, ascending_less>(10 * tuning::optimized<8>::tile_keys + 5,
                                               tuning::optimized<8>::tile_log2 + 2,
                                               distribution::nan);
  expect_merge_stage<float, ascending_less>(5 * tuning::optimized<4>::tile_keys + 777,
                                            tuning::optimized<4>::tile_log2 + 3, distribution::nan);
  expect_merge_stage<std::int64_t, descending_less>(11 * tuning::optimized<8>::tile_keys + 3,
                                                    tuning::optimized<8>::tile_log2 + 2,
                                                    distribution::few);
  expect_scratch_plan_sorts<std::int32_t, descending_less>((std::size_t{1} << 18) + 1);
  expect_scratch_plan_sorts<double, ascending_less>((std::size_t{1} << 17) + 5);  // words
  expect_in_cache_merge_plan_sorts<double, descending_less>(
      (std::size_t{1} << (tuning::optimized<8>::merge_min_log2 - 1)) + 5, distribution::nan);
  // A plan for few tiles of 8-byte keys: warps and rest tiles of 16 keys a thread, gathers on the
  // few-tiles plans' tiles, warp tails.
  expect_plan_sorts<std::int64_t, descending_less>((std::size_t{1} << 16) + 3, {21, 132},
                                                   "few-tiles plan", plan::scratch_use::allowed,
                                                   distribution::uniform);
  // The split plans: the split's four kernels, then buckets of one to eight tiles, and equality
  // buckets of equal and few keys.
  expect_split_bucket_plan_sorts<std::int32_t, descending_less>((std::size_t{1} << 19) + 7,
                                                                distribution::uniform);
  expect_split_bucket_plan_sorts<double, ascending_less>((std::size_t{1} << 17) + 1,
                                                         distribution::nan);
  expect_split_bucket_plan_sorts<std::int64_t, ascending_less>((std::size_t{1} << 17) + 1,
                                                               distribution::equal);  // equality
  expect_split_bucket_plan_sorts<float, descending_less>((std::size_t{1} << 18) + 3,
                                                         distribution::few);  // buckets
  // Refined: the refinement's five kernels, the first pass from the keys.
  expect_split_bucket_plan_sorts<std::int32_t, ascending_less>((std::size_t{1} << 20) + 7,
                                                               distribution::uniform, true);
  expect_split_bucket_plan_sorts<double, descending_less>((std::size_t{1} << 19) + 5,
                                                          distribution::few, true);
  expect_narrow_partition<std::int64_t, descending_less>(5 * tuning::optimized<8>::tile_keys + 9,
                                                         tuning::optimized<8>::tile_log2 + 2,
                                                         distribution::few);
  if (runtime::launches_clusters()) {  // 16 blocks, the last 7 all pads; 4 blocks
    expect_cluster_sorts<std::int32_t, descending_less>((std::size_t{1} << 15) + 3,
                                                        distribution::uniform);
    expect_cluster_sorts<float, ascending_less>((std::size_t{1} << 14) - 5, distribution::nan);
  }
  for (const bool split : {false, true}) {
    expect_sorted_tiles<float, descending_less>(2 * tuning::optimized<4>::tile_keys + 5,
                                                distribution::nan, split);
    expect_sorted_tiles<double, ascending_less>(2 * tuning::optimized<8>::tile_keys + 5,
                                                distribution::nan, split);
  }
}

}  // namespace
}  // namespace bitonic::test
