// Small sorts that launch every kernel of every variant, for compute-sanitizer:
//   compute-sanitizer --tool memcheck bitonic_gpu_tests --gtest_filter='Sanitize*'
//   compute-sanitizer --tool racecheck bitonic_gpu_tests --gtest_filter='Sanitize*'
// 3000 keys fit one tile, so only the tile kernels run; 20000 keys need the global and merge
// passes too. Both keys sizes, because the tile kernels are tuned per key size.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "common_test.hpp"
#include "device_memory.hpp"

namespace bitonic {
namespace {

template <class Key>
void expect_small_sorts(algorithm algo) {
  for (const std::size_t n : {3000u, 20000u}) {
    const std::uint64_t seed = test::case_seed(n, tools::distribution::uniform);
    const std::vector<Key> input = tools::generate<Key>(n, tools::distribution::uniform, seed);
    test::device_array<Key> keys(n);
    for (const order direction : test::all_orders) {
      EXPECT_TRUE(test::matches_reference(test::sort_on_device(keys, input, {direction, algo}),
                                          tools::reference_sort(input, direction)))
          << test::describe_case<Key>(n, tools::distribution::uniform, seed, direction, algo);
    }
  }
}

void expect_small_sorts_of_both_key_sizes(algorithm algo) {
  expect_small_sorts<std::int32_t>(algo);
  expect_small_sorts<double>(algo);
}

TEST(Sanitize, GlobalStep) {
  expect_small_sorts_of_both_key_sizes(algorithm::global_step);
}
TEST(Sanitize, FusedSteps) {
  expect_small_sorts_of_both_key_sizes(algorithm::fused_steps);
}
TEST(Sanitize, SharedTiles) {
  expect_small_sorts_of_both_key_sizes(algorithm::shared_tiles);
}
TEST(Sanitize, BlockMerge) {
  expect_small_sorts_of_both_key_sizes(algorithm::block_merge);
}
TEST(Sanitize, Optimized) {
  expect_small_sorts_of_both_key_sizes(algorithm::optimized);
}
// Out of place (sort(d_in, d_out, n)): the first pass reads d_in, another array than the one it
// writes (one tile, and the split plan for few tiles); d_in must stay untouched.
TEST(Sanitize, OutOfPlace) {
  for (const std::size_t n : {3000u, 300001u}) {
    const std::uint64_t seed = test::case_seed(n, tools::distribution::uniform);
    const std::vector<float> input = tools::generate<float>(n, tools::distribution::uniform, seed);
    test::device_array<float> in(n), out(n);
    in.upload(input);
    sort(static_cast<const float*>(in.get()), out.get(), n);
    EXPECT_TRUE(
        test::matches_reference(out.download(), tools::reference_sort(input, order::ascending)))
        << test::describe_case<float>(n, tools::distribution::uniform, seed, order::ascending,
                                      algorithm::automatic);
    EXPECT_TRUE(tools::first_mismatch(in.download(), input) == std::nullopt) << "d_in changed";
  }
}

// sort_host out of core: runs sorted on the device, then the merge kernel (optimized_merge, one
// pair a piece) on streamed pieces of less than a tile (doubles) and of several tiles (floats).
template <class Key>
void expect_out_of_core_host_sort(std::size_t n) {
  const std::uint64_t seed = test::case_seed(n, tools::distribution::few);
  for (const order direction : test::all_orders) {
    std::vector<Key> keys = tools::generate<Key>(n, tools::distribution::few, seed);
    const std::vector<Key> expected = tools::reference_sort(keys, direction);
    options opt{direction};
    opt.max_device_bytes = n * sizeof(Key) / 8;
    sort_host(keys.data(), n, opt);
    EXPECT_TRUE(test::matches_reference(keys, expected))
        << test::describe_case<Key>(n, tools::distribution::few, seed, direction,
                                    algorithm::automatic)
        << " sort_host out of core";
  }
}

TEST(Sanitize, HostSortOutOfCore) {
  expect_out_of_core_host_sort<double>(20000);
  expect_out_of_core_host_sort<float>(200000);
}

//! The record kernels (record words, both halves of 8-byte keys, unpacks, gathers; for 1- and
//! 2-byte keys the widens, narrows and gathers around them) under
//! sort_pairs (stable and not; 4-byte values ride in the words), argsort and the stable sort:
//! keys come out as std::sort's, and the values with them.
template <class Key, class Value>
void expect_small_record_sorts() {
  const std::size_t n = 20000;
  const std::uint64_t seed = test::case_seed(n, tools::distribution::few);
  const std::vector<Key> input = tools::generate<Key>(n, tools::distribution::few, seed);
  test::device_array<Key> keys(n);
  test::device_array<Value> values(n);
  test::device_array<std::uint32_t> indices(n);
  std::vector<Value> positions(n);
  for (std::size_t i = 0; i < n; ++i)
    positions[i] = Value(i);
  for (const order direction : test::all_orders) {
    const std::vector<Key> expected = tools::reference_sort(input, direction);
    const std::string what = test::describe_case<Key>(n, tools::distribution::few, seed, direction,
                                                      algorithm::automatic);
    keys.upload(input);
    argsort(keys.get(), indices.get(), n, {direction});
    std::vector<Key> by_index(n);
    const std::vector<std::uint32_t> order_found = indices.download();
    for (std::size_t i = 0; i < n; ++i)
      by_index[i] = input[order_found[i]];
    EXPECT_TRUE(test::matches_reference(by_index, expected)) << what << " argsort";
    for (const bool stable : {false, true}) {
      keys.upload(input);
      values.upload(positions);
      sort_pairs(keys.get(), values.get(), n, {.direction = direction, .stable = stable});
      const std::vector<Key> sorted = keys.download();
      EXPECT_TRUE(test::matches_reference(sorted, expected)) << what << " sort_pairs " << stable;
      const std::vector<Value> moved = values.download();
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_LT(std::size_t(moved[i]), n) << what << " sort_pairs value at " << i;
        by_index[i] = input[std::size_t(moved[i])];
      }
      EXPECT_TRUE(test::matches_reference(by_index, expected))
          << what << " sort_pairs values " << stable;
    }
    EXPECT_TRUE(test::matches_reference(
        test::sort_on_device(keys, input, {.direction = direction, .stable = true}), expected))
        << what << " stable";
  }
}

TEST(Sanitize, Records) {
  expect_small_record_sorts<float, std::uint32_t>();
  expect_small_record_sorts<std::int32_t, std::uint64_t>();
  expect_small_record_sorts<std::int64_t, std::uint64_t>();
  // 1- and 2-byte keys: class words, the word sorts' records, narrows and gathers by index.
  expect_small_record_sorts<std::int8_t, std::uint32_t>();
  expect_small_record_sorts<__half, std::uint64_t>();
}

// Records past the word sort's split (kernels/record_io.cuh): the split reads them from the
// caller's arrays and the buckets' last passes (first passes and merges) write them back apart, or
// (stable pairs) write the sorted positions that the gathers read.
TEST(Sanitize, SplitRecords) {
  const std::size_t n = (std::size_t{1} << 23) + 333;
  const std::uint64_t seed = test::case_seed(n, tools::distribution::nan);
  const std::vector<float> input = tools::generate<float>(n, tools::distribution::nan, seed);
  test::device_array<float> keys(n);
  test::device_array<float> sorted(n);
  test::device_array<std::uint32_t> values(n);
  test::device_array<std::uint64_t> indices(n);
  std::vector<std::uint32_t> positions(n);
  for (std::size_t i = 0; i < n; ++i)
    positions[i] = std::uint32_t(i);
  for (const order direction : test::all_orders) {
    const std::vector<float> expected = tools::reference_sort(input, direction);
    const std::string what = test::describe_case<float>(n, tools::distribution::nan, seed,
                                                        direction, algorithm::automatic);
    keys.upload(input);
    argsort(keys.get(), sorted.get(), indices.get(), n, {direction});
    EXPECT_TRUE(test::matches_reference(sorted.download(), expected)) << what << " argsort";
    values.upload(positions);
    sort_pairs(keys.get(), values.get(), n, {direction});
    EXPECT_TRUE(test::matches_reference(keys.download(), expected)) << what << " sort_pairs";
    const std::vector<std::uint32_t> moved = values.download();
    std::vector<float> by_value(n);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_LT(std::size_t(moved[i]), n) << what << " sort_pairs value at " << i;
      by_value[i] = input[moved[i]];
    }
    EXPECT_TRUE(test::matches_reference(by_value, expected)) << what << " sort_pairs values";
    keys.upload(input);  // stable: positions written by the last passes, then gathers
    values.upload(positions);
    sort_pairs(keys.get(), values.get(), n, {.direction = direction, .stable = true});
    EXPECT_TRUE(test::matches_reference(keys.download(), expected)) << what << " stable pairs";
    const std::vector<std::uint32_t> stable_moved = values.download();
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_LT(std::size_t(stable_moved[i]), n) << what << " stable value at " << i;
      by_value[i] = input[stable_moved[i]];
    }
    EXPECT_TRUE(test::matches_reference(by_value, expected)) << what << " stable values";
  }
}

//! Pairs of n double keys with their positions as 8-byte values, both orders, unstable and stable.
void expect_wide_pairs(std::size_t n) {
  const std::uint64_t seed = test::case_seed(n, tools::distribution::nan);
  const std::vector<double> input = tools::generate<double>(n, tools::distribution::nan, seed);
  test::device_array<double> keys(n);
  test::device_array<std::uint64_t> values(n);
  std::vector<std::uint64_t> positions(n);
  for (std::size_t i = 0; i < n; ++i)
    positions[i] = i;
  for (const order direction : test::all_orders) {
    for (const bool stable : {false, true}) {  // stable: positions from the words, then gathers
      const std::vector<double> expected = tools::reference_sort(input, direction);
      const std::string what = test::describe_case<double>(n, tools::distribution::nan, seed,
                                                           direction, algorithm::automatic) +
                               (stable ? " stable" : "");
      keys.upload(input);
      values.upload(positions);
      sort_pairs(keys.get(), values.get(), n, {.direction = direction, .stable = stable});
      EXPECT_TRUE(test::matches_reference(keys.download(), expected)) << what << " sort_pairs";
      const std::vector<std::uint64_t> moved = values.download();
      const std::vector<double> got = keys.download();
      std::size_t mismatched = 0;
      for (std::size_t i = 0; i < n; ++i)
        mismatched += std::memcmp(&input[moved[i]], &got[i], sizeof(double)) != 0;
      EXPECT_EQ(mismatched, 0u) << what << ": values not beside their keys";
    }
    // argsort with the sorted keys: the last passes write both (a zero's or NaN's key read at
    // its position: record_io::keys_by_position)
    test::device_array<double> sorted(n);
    keys.upload(input);
    argsort(keys.get(), sorted.get(), values.get(), n, {direction});
    EXPECT_TRUE(test::matches_reference(sorted.download(), tools::reference_sort(input, direction)))
        << test::describe_case<double>(n, tools::distribution::nan, seed, direction,
                                       algorithm::automatic)
        << " argsort";
  }
}

// Pairs of 8-byte keys as 16-byte words (kernels/record_io.cuh's wide_record_io): the split and
// its refinement read them from the caller's arrays, the first pass and the merges write them
// back apart.
TEST(Sanitize, WideRecords) {
  for (const std::size_t n : {(std::size_t{1} << 19) + 333, (std::size_t{1} << 22) + 333}) {
    expect_wide_pairs(n);  // the split alone, then refined
  }
}
// sort_batched: rows of one tile pass (200 keys), rows sorted as a head and a tail (300 keys:
// 256 + 44; 2049: 2048 + 1, no tail sort), staged short rows (5, 17 and 33 keys: rows
// padded to 8 to 64 keys, 300 rows: a whole block and a partial one), the merged passes of one
// row (2^15 for 4-byte keys, 2^14 for 8-byte), on rows with missing keys past their size (one past
// a tile, and three tiles and five keys: tiles of missing keys in every row).
template <class Key>
void expect_small_batched_sorts() {
  constexpr std::size_t tile = sizeof(Key) == 4 ? std::size_t{1} << 14 : std::size_t{1} << 13;
  // 16 and 32 keys: short rows of two and four lanes (four-byte keys), of four lanes and the tile
  // (eight-byte keys); 34 and 36: staged rows taken as 8- and 16-byte vectors (four-byte keys),
  // 40 from a skewed staging.
  for (const std::size_t size :
       {std::size_t{5}, std::size_t{16}, std::size_t{17}, std::size_t{32}, std::size_t{33},
        std::size_t{34}, std::size_t{36}, std::size_t{40}, std::size_t{200}, std::size_t{300},
        std::size_t{384}, std::size_t{2049}, std::size_t{3000}, 2 * tile, tile + 1, 3 * tile + 5}) {
    const std::size_t arrays = size < 1000 ? 300 : 3;
    const std::uint64_t seed = test::case_seed(size, tools::distribution::uniform);
    const std::vector<Key> input =
        tools::generate<Key>(arrays * size, tools::distribution::uniform, seed);
    test::device_array<Key> keys(input.size());
    for (const order direction : test::all_orders) {
      keys.upload(input);
      sort_batched(keys.get(), arrays, size, {.direction = direction});
      const std::vector<Key> sorted = keys.download();
      for (std::size_t a = 0; a < arrays; ++a) {
        const auto row = [&](const std::vector<Key>& v) {
          return std::vector<Key>(v.begin() + std::ptrdiff_t(a * size),
                                  v.begin() + std::ptrdiff_t((a + 1) * size));
        };
        EXPECT_TRUE(
            test::matches_reference(row(sorted), tools::reference_sort(row(input), direction)))
            << tools::type_name<Key>() << " array " << a << " of " << arrays << " of " << size
            << " keys, seed " << seed << ' ' << test::to_string(direction);
      }
      // The record forms: argsort_batched (indices within arrays) and sort_batched_pairs, whose
      // word sort is the batched 8-byte sort.
      test::device_array<std::uint32_t> indices(input.size());
      keys.upload(input);
      argsort_batched(keys.get(), indices.get(), arrays, size, {.direction = direction});
      const std::vector<std::uint32_t> order = indices.download();
      for (std::size_t i = 0; i < order.size(); ++i)
        ASSERT_LT(order[i], size) << "argsort_batched index at " << i;
      sort_batched_pairs(keys.get(), indices.get(), arrays, size, {.direction = direction});
      EXPECT_TRUE(test::matches_reference(keys.download(), sorted))
          << tools::type_name<Key>() << " sort_batched_pairs of " << size << " keys";
    }
  }
}

// Record rows that gather their keys: float argsort_batched with the sorted keys and 8-byte
// indices (the keys read back through the columns), checked against a stable sort of each row.
void expect_float_record_rows() {
  for (const std::size_t size :
       {std::size_t{5}, std::size_t{300}, std::size_t{3000}, std::size_t{8192}}) {
    const std::size_t arrays = size < 1000 ? 33 : 3;
    const std::uint64_t seed = test::case_seed(size, tools::distribution::nan);
    const std::vector<float> input =
        tools::generate<float>(arrays * size, tools::distribution::nan, seed);
    test::device_array<float> keys(input.size()), sorted(input.size());
    test::device_array<std::uint64_t> indices(input.size());
    keys.upload(input);
    for (const order direction : test::all_orders) {
      argsort_batched(keys.get(), sorted.get(), indices.get(), arrays, size,
                      {.direction = direction});
      const std::vector<float> got = sorted.download();
      const std::vector<std::uint64_t> order = indices.download();
      for (std::size_t a = 0; a < arrays; ++a) {
        const std::vector<float> row(input.begin() + std::ptrdiff_t(a * size),
                                     input.begin() + std::ptrdiff_t((a + 1) * size));
        const std::vector<std::uint64_t> exact = test::stable_order(row, direction);
        for (std::size_t j = 0; j < size; ++j) {
          ASSERT_EQ(order[a * size + j], exact[j]) << "float record rows of " << size << ", seed "
                                                   << seed << ' ' << test::to_string(direction);
          ASSERT_EQ(std::memcmp(&got[a * size + j], &row[exact[j]], sizeof(float)), 0)
              << "float record rows' keys of " << size << ", seed " << seed;
        }
      }
    }
  }
}

TEST(Sanitize, Batched) {
  expect_small_batched_sorts<std::int32_t>();
  expect_small_batched_sorts<double>();
  expect_float_record_rows();
}

// topk: 4-byte keys with k <= 2048 take the select kernel (one part; fewer keys than K, so that
// the padding takes part in the selection; in wide blocks where a pass has fewer jobs than the
// device has SMs, 300 arrays for the narrow ones); arrays that need several select passes and fit
// the L2 (1 x 100000, 3 x 50000) the radix selection, then the ranking kernel;
// the rest the record words, the batched word sort (one tile, and past it) and the take kernel.
template <class Key>
void expect_small_topks() {
  for (const auto [batch, n, k] : {std::array<std::size_t, 3>{3, 3000, 100},
                                   {2, 100, 100},
                                   {300, 1000, 33},
                                   {2, 20000, 2049},
                                   {1, 100000, 100},
                                   {3, 50000, 1000}}) {
    const std::uint64_t seed = test::case_seed(n, tools::distribution::uniform);
    const std::vector<Key> input =
        tools::generate<Key>(batch * n, tools::distribution::uniform, seed);
    test::device_array<Key> keys(batch * n);
    keys.upload(input);
    test::device_array<Key> out_keys(batch * k);
    test::device_array<std::uint32_t> out_indices(batch * k);
    for (const order direction : test::all_orders) {
      topk(keys.get(), batch, n, k, out_keys.get(), out_indices.get(), {direction});
      EXPECT_TRUE(test::matches_topk(out_keys.download(), out_indices.download(), input, batch, n,
                                     k, direction))
          << tools::type_name<Key>() << " topk k=" << k << " of " << batch << " x " << n
          << " seed=" << seed << " order=" << test::to_string(direction);
    }
  }
}

TEST(Sanitize, TopK) {
  expect_small_topks<std::int32_t>();
  expect_small_topks<double>();
}

// Segments of every class of the tile kernel side by side (and one past a tile), keys only with
// and without positions (stable floats), pairs and argsort, both key sizes.
template <class Key>
void expect_small_segments() {
  const std::vector<std::uint64_t> lengths = {0,   1,   2,    3,    5,    17,  33,
                                              100, 300, 1000, 2049, 8192, 8193};
  std::vector<std::uint64_t> offsets = {0};
  for (const std::uint64_t m : lengths)
    offsets.push_back(offsets.back() + m);
  const std::size_t n = offsets.back(), segments = lengths.size();
  const std::uint64_t seed = test::case_seed(n, tools::distribution::nan);
  const std::vector<Key> input = tools::generate<Key>(n, tools::distribution::nan, seed);
  test::device_array<std::uint64_t> d_offsets(offsets.size());
  d_offsets.upload(offsets);
  test::device_array<Key> keys(n);
  test::device_array<std::uint32_t> values(n);
  for (const bool stable : {false, true}) {
    keys.upload(input);
    options opt;
    opt.stable = stable;
    sort_segments(keys.get(), d_offsets.get(), segments, opt);
    const std::vector<Key> got = keys.download();
    for (std::size_t s = 0; s < segments; ++s) {
      std::vector<Key> want(input.begin() + std::ptrdiff_t(offsets[s]),
                            input.begin() + std::ptrdiff_t(offsets[s + 1]));
      std::sort(want.begin(), want.end(), ascending_less{});
      EXPECT_TRUE(
          test::matches_reference(std::vector<Key>(got.begin() + std::ptrdiff_t(offsets[s]),
                                                   got.begin() + std::ptrdiff_t(offsets[s + 1])),
                                  want))
          << tools::type_name<Key>() << " sort_segments, segment " << s << " seed=" << seed;
    }
  }
  keys.upload(input);
  values.upload(std::vector<std::uint32_t>(n, 7));  // initcheck: the values are read
  sort_segments_pairs(keys.get(), values.get(), d_offsets.get(), segments);
  argsort_segments(keys.get(), values.get(), d_offsets.get(), segments, {order::descending});
  const std::vector<Key> sorted = keys.download();
  const std::vector<std::uint32_t> indices = values.download();
  for (std::size_t s = 0; s < segments; ++s) {
    const std::vector<Key> part(sorted.begin() + std::ptrdiff_t(offsets[s]),
                                sorted.begin() + std::ptrdiff_t(offsets[s + 1]));
    const std::vector<std::uint64_t> want = test::stable_order(part, order::descending);
    EXPECT_TRUE(std::equal(want.begin(), want.end(), indices.begin() + std::ptrdiff_t(offsets[s])))
        << tools::type_name<Key>() << " argsort_segments, segment " << s << " seed=" << seed;
  }
}

TEST(Sanitize, Segments) {
  expect_small_segments<float>();
  expect_small_segments<std::int64_t>();
}

TEST(Sanitize, Automatic) {
  expect_small_sorts_of_both_key_sizes(algorithm::automatic);
}

}  // namespace
}  // namespace bitonic
