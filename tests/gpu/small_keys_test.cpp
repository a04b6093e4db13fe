// 1- and 2-byte keys on a GPU (int8, uint8, int16, uint16, __half, __nv_bfloat16): sort and
// sort_host against sort_on_cpu bit for bit and std::sort, every algorithm, distribution and order
// at lengths around powers of two, lengths past one L2 block, stable sorts of 2-byte floats
// against std::stable_sort, the exact workspace and one byte less, the CPU fallback of sort_host;
// the segmented, batched-record and top-k forms on one case each for compute-sanitizer (their
// full tests are those of every key type: segments_test, batched_test, topk_test).
// Seeds: test::case_seed(n, distribution), printed with every failure.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "common_test.hpp"
#include "device_memory.hpp"

namespace bitonic {
namespace {

using test::device_array;
using test::matches_reference;
using test::same_bits;
using tools::distribution;

//! sort_on_cpu's result for `input`: what the device must give bit for bit.
template <class Key>
std::vector<Key> cpu_result(std::vector<Key> keys, const options& opt) {
  sort_on_cpu(keys.data(), keys.size(), opt);
  return keys;
}

//! std::stable_sort's result in `direction`.
template <class Key>
std::vector<Key> stable_reference(std::vector<Key> keys, order direction) {
  if (direction == order::ascending) {
    std::stable_sort(keys.begin(), keys.end(), ascending_less{});
  } else {
    std::stable_sort(keys.begin(), keys.end(), descending_less{});
  }
  return keys;
}

//! Sorts `input` on the device with opt and checks it against std::sort and, bit for bit,
//! against `exact`.
template <class Key>
void expect_device_sort(device_array<Key>& keys, const std::vector<Key>& input,
                        const std::vector<Key>& expected, const std::vector<Key>& exact,
                        const options& opt, const std::string& label) {
  const std::vector<Key> result = test::sort_on_device(keys, input, opt);
  EXPECT_TRUE(matches_reference(result, expected)) << label;
  EXPECT_TRUE(same_bits(result, exact)) << label << " (against sort_on_cpu)";
}

template <class Key>
class SmallKeysGpu : public ::testing::Test {};
TYPED_TEST_SUITE(SmallKeysGpu, test::small_key_types, test::key_type_names);

// Every algorithm (the word sort takes it) up to 2^16 + 1 keys, automatic beyond; on a stream
// of its own.
TYPED_TEST(SmallKeysGpu, MatchesSortOnCpuBitForBit) {
  using Key = TypeParam;
  constexpr std::uint64_t lengths_seed = 20261126;
  std::vector<std::size_t> lengths = {0,    1,    2,    3,    31,   32,    33,    1023,
                                      1024, 1025, 8191, 8192, 8193, 65535, 65536, 65537};
  for (const std::size_t n : test::random_lengths(3, 10, 21, lengths_seed))
    lengths.push_back(n);
  const cuda_stream stream;
  for (const std::size_t n : lengths) {
    device_array<Key> keys(n);
    for (const distribution d : tools::all_distributions) {
      const std::uint64_t seed = test::case_seed(n, d);
      const std::vector<Key> input = tools::generate<Key>(n, d, seed);
      for (const order direction : test::all_orders) {
        const std::vector<Key> expected = tools::reference_sort(input, direction);
        const std::vector<Key> exact = cpu_result(input, {.direction = direction});
        for (const algorithm algo : test::all_algorithms) {
          if (n > 65537 && algo != algorithm::automatic) continue;
          expect_device_sort(keys, input, expected, exact,
                             {.direction = direction, .algo = algo, .stream = stream.get()},
                             test::describe_case<Key>(n, d, seed, direction, algo));
        }
      }
    }
    if (this->HasFailure()) return;  // the first failing length says enough
  }
}

// Past one L2 block of 4-byte words (2^22 on an H100) the word sort merges through its own
// workspace, carved from the small-key sort's scratch.
TYPED_TEST(SmallKeysGpu, PastTheCacheBlock) {
  using Key = TypeParam;
  const std::size_t n = (std::size_t{1} << 22) + 3;
  device_array<Key> keys(n);
  for (const distribution d : {distribution::uniform, distribution::few, distribution::nan}) {
    const std::uint64_t seed = test::case_seed(n, d);
    const std::vector<Key> input = tools::generate<Key>(n, d, seed);
    for (const order direction : test::all_orders) {
      expect_device_sort(keys, input, tools::reference_sort(input, direction),
                         cpu_result(input, {.direction = direction}), {.direction = direction},
                         test::describe_case<Key>(n, d, seed, direction, algorithm::automatic));
    }
  }
}

// sort_batched: every array against sort_on_cpu of that array bit for bit (stable __half and
// __nv_bfloat16 against std::stable_sort), arrays of one key to past a tile of words (the batched
// word sort's one-pass rows, its merged rows, lengths not powers of two), both orders; then the
// exact batched workspace on a stream allocates nothing and one byte less throws.
TYPED_TEST(SmallKeysGpu, BatchedArraysMatchSortOnCpu) {
  using Key = TypeParam;
  const std::pair<std::size_t, std::size_t> shapes[] = {
      {0, 5}, {7, 1}, {5, 2}, {300, 3}, {64, 300}, {9, 1000}, {4, 8193}, {3, 20000}, {2, 65537}};
  for (const auto& [arrays, size] : shapes) {
    const std::size_t n = arrays * size;
    device_array<Key> keys(n);
    for (const distribution d : {distribution::uniform, distribution::few, distribution::nan}) {
      const std::uint64_t seed = test::case_seed(n, d);
      const std::vector<Key> input = tools::generate<Key>(n, d, seed);
      for (const order direction : test::all_orders) {
        for (const bool stable : {false, true}) {
          const std::string label =
              test::describe_case<Key>(n, d, seed, direction, algorithm::automatic) +
              " arrays=" + std::to_string(arrays) + " size=" + std::to_string(size) +
              " stable=" + std::to_string(stable);
          std::vector<Key> exact(input);
          for (std::size_t a = 0; a < arrays; ++a) {
            std::vector<Key> row(input.begin() + a * size, input.begin() + (a + 1) * size);
            row = stable ? stable_reference(row, direction)
                         : cpu_result(row, {.direction = direction});
            std::copy(row.begin(), row.end(), exact.begin() + a * size);
          }
          keys.upload(input);
          sort_batched(keys.get(), arrays, size, {.direction = direction, .stable = stable});
          ASSERT_TRUE(same_bits(keys.download(), exact)) << label;
        }
      }
    }
  }
  const std::size_t arrays = 6, size = 40000, n = arrays * size;
  const std::vector<Key> input = tools::generate<Key>(n, distribution::uniform, 61);
  const cuda_stream stream;
  const options base{.direction = order::descending, .stream = stream.get()};
  const std::size_t bytes = batched_workspace_bytes<Key>(arrays, size, base);
  ASSERT_GT(bytes, n * sizeof(std::uint32_t));
  device_buffer<std::byte> workspace(bytes);
  options opt = base;
  opt.workspace = workspace.get();
  opt.workspace_bytes = bytes;
  device_array<Key> keys(n);
  keys.upload(input, stream.get());
  const std::size_t cached_before = cached_memory_bytes();
  sort_batched(keys.get(), arrays, size, opt);
  std::vector<Key> exact(input);
  for (std::size_t a = 0; a < arrays; ++a)
    sort_on_cpu(exact.data() + a * size, size, {.direction = order::descending});
  EXPECT_TRUE(same_bits(keys.download(stream.get()), exact));
  EXPECT_EQ(cached_memory_bytes(), cached_before) << "a call with a workspace allocated";
  opt.workspace_bytes = bytes - 1;
  keys.upload(input, stream.get());
  EXPECT_TRUE(test::throws_error([&] { sort_batched(keys.get(), arrays, size, opt); },
                                 {std::to_string(bytes), "batched_workspace_bytes"}));
  EXPECT_TRUE(same_bits(keys.download(stream.get()), input)) << "keys changed by a refused call";
  EXPECT_TRUE(test::throws_error(
      [&] { sort_batched(keys.get(), arrays, size, {.algo = algorithm::shared_tiles}); },
      "sort_batched"));
}

// Exactly workspace_bytes sorts, allocating nothing from the library's pool (at any alignment);
// one byte less throws naming both sizes and leaves the keys as they were. Below and past the
// cache block (where the word sort needs a workspace of its own).
TYPED_TEST(SmallKeysGpu, ExactWorkspaceSortsOneByteLessThrows) {
  using Key = TypeParam;
  for (const std::size_t n : {std::size_t{1000}, (std::size_t{1} << 22) + 3}) {
    const distribution d = distribution::nan;
    const std::uint64_t seed = test::case_seed(n, d);
    const std::vector<Key> input = tools::generate<Key>(n, d, seed);
    device_array<Key> keys(n);
    for (const order direction : test::all_orders) {
      const std::vector<Key> expected = tools::reference_sort(input, direction);
      const std::vector<Key> exact = cpu_result(input, {.direction = direction});
      const std::size_t bytes = workspace_bytes<Key>(n, {.direction = direction});
      ASSERT_GE(bytes, n * sizeof(std::uint32_t)) << "n=" << n;
      device_buffer<std::byte> workspace(bytes + 1);
      release_cached_memory();
      const std::string label =
          test::describe_case<Key>(n, d, seed, direction, algorithm::automatic) + " workspace of " +
          std::to_string(bytes) + " bytes";
      for (const std::size_t offset : {0u, 1u}) {
        expect_device_sort(keys, input, expected, exact,
                           {.direction = direction,
                            .workspace = workspace.get() + offset,
                            .workspace_bytes = bytes},
                           label + " at offset " + std::to_string(offset));
        EXPECT_EQ(cached_memory_bytes(), 0u) << label << ": the pool allocated";
      }
      keys.upload(input);
      const options short_one{
          .direction = direction, .workspace = workspace.get(), .workspace_bytes = bytes - 1};
      EXPECT_TRUE(test::throws_error([&] { sort(keys.get(), n, short_one); },
                                     {"workspace_bytes is " + std::to_string(bytes - 1),
                                      "needs " + std::to_string(bytes) + " bytes"}))
          << label;
      EXPECT_TRUE(same_bits(keys.download(), input)) << label << ": keys changed by a failed call";
    }
  }
}

//! sort_host of `input` with opt against std::sort (`expected`) and bit for bit against `exact`.
template <class Key>
void expect_host_sort(const std::vector<Key>& input, const std::vector<Key>& expected,
                      const std::vector<Key>& exact, const options& opt, const std::string& label) {
  std::vector<Key> keys = input;
  sort_host(keys.data(), keys.size(), opt);
  EXPECT_TRUE(matches_reference(keys, expected)) << label;
  EXPECT_TRUE(same_bits(keys, exact)) << label << " (against sort_on_cpu)";
}

// Through the device where the keys and the scratch fit (here: always, and with a budget of
// exactly that), on the CPU with a budget one byte short.
TYPED_TEST(SmallKeysGpu, SortHostOnTheDeviceAndOnTheCpu) {
  using Key = TypeParam;
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{1000},
                              (std::size_t{1} << 20) + 3, (std::size_t{1} << 22) + 3}) {
    const distribution d = distribution::nan;
    const std::uint64_t seed = test::case_seed(n, d);
    const std::vector<Key> input = tools::generate<Key>(n, d, seed);
    for (const order direction : test::all_orders) {
      const std::string label =
          test::describe_case<Key>(n, d, seed, direction, algorithm::automatic) + " sort_host";
      const std::vector<Key> expected = tools::reference_sort(input, direction);
      const std::vector<Key> exact = cpu_result(input, {.direction = direction});
      expect_host_sort(input, expected, exact, {.direction = direction}, label);
      if (n < 2) continue;
      const std::size_t fits = n * sizeof(Key) + workspace_bytes<Key>(n, {.direction = direction});
      expect_host_sort(input, expected, exact, {.direction = direction, .max_device_bytes = fits},
                       label + " max_device_bytes=" + std::to_string(fits));
      expect_host_sort(input, expected, exact,
                       {.direction = direction, .max_device_bytes = fits - 1},
                       label + " max_device_bytes=" + std::to_string(fits - 1) + " (the CPU)");
    }
  }
}

template <class Key>
class SmallKeysGpuStable : public ::testing::Test {};
using stable_key_types = ::testing::Types<__half, __nv_bfloat16, std::int16_t>;
TYPED_TEST_SUITE(SmallKeysGpuStable, stable_key_types, test::key_type_names);

// opt.stable: equivalent keys (-0.0 and +0.0, NaN payloads) in input order, bit for bit as
// std::stable_sort, on the device (its own workspace size: 8-byte words for 2-byte floats) and
// through sort_host.
TYPED_TEST(SmallKeysGpuStable, MatchesStdStableSortBitForBit) {
  using Key = TypeParam;
  for (const std::size_t n :
       {std::size_t{2}, std::size_t{1000}, std::size_t{65537}, (std::size_t{1} << 22) + 3}) {
    device_array<Key> keys(n);
    for (const distribution d : {distribution::nan, distribution::few, distribution::equal}) {
      const std::uint64_t seed = test::case_seed(n, d);
      const std::vector<Key> input = tools::generate<Key>(n, d, seed);
      for (const order direction : test::all_orders) {
        const std::string label =
            test::describe_case<Key>(n, d, seed, direction, algorithm::automatic) + " stable";
        const options opt{.direction = direction, .stable = true};
        const std::vector<Key> exact = stable_reference(input, direction);
        expect_device_sort(keys, input, tools::reference_sort(input, direction), exact, opt, label);
        std::vector<Key> host = input;
        sort_host(host.data(), n, opt);
        EXPECT_TRUE(same_bits(host, exact)) << label << " sort_host";
        if constexpr (is_half_float_v<Key>) {
          EXPECT_GE(workspace_bytes<Key>(n, opt), n * sizeof(std::uint64_t)) << label;
        }
      }
    }
  }
}

TEST(SmallKeysGpuErrors, BadArgumentsThrowBeforeAnyKeyMoves) {
  std::vector<std::int8_t> host = {3, 1, 2};
  EXPECT_TRUE(test::throws_error([&] { sort(host.data(), host.size()); }, "bitonic::sort"));
  EXPECT_TRUE(test::throws_error(
      [] { (void)workspace_bytes<__half>((std::size_t{1} << 32) + 1, {.stable = true}); }, "2^32"));
  EXPECT_EQ(workspace_bytes<std::uint8_t>(1), 0u);
  device_array<__nv_bfloat16> keys(4);
  EXPECT_TRUE(test::throws_error([&] { sort(keys.get(), 4, {.algo = static_cast<algorithm>(42)}); },
                                 "bitonic::sort"));
}

//! Small sorts of Key (3000 keys: one tile of words; 20000: global and merge passes too), plain
//! and stable, on the device and through sort_host.
template <class Key>
void expect_small_key_sorts() {
  for (const std::size_t n : {3000u, 20000u}) {
    const distribution d = distribution::nan;
    const std::uint64_t seed = test::case_seed(n, d);
    const std::vector<Key> input = tools::generate<Key>(n, d, seed);
    device_array<Key> keys(n);
    for (const order direction : test::all_orders) {
      const std::string label =
          test::describe_case<Key>(n, d, seed, direction, algorithm::automatic);
      expect_device_sort(keys, input, tools::reference_sort(input, direction),
                         cpu_result(input, {.direction = direction}), {.direction = direction},
                         label);
      expect_device_sort(keys, input, tools::reference_sort(input, direction),
                         stable_reference(input, direction),
                         {.direction = direction, .stable = true}, label + " stable");
      expect_host_sort(input, tools::reference_sort(input, direction),
                       cpu_result(input, {.direction = direction}), {.direction = direction},
                       label + " sort_host");
      for (const bool stable : {false, true}) {  // sort_batched: arrays of 1000 keys
        keys.upload(input);
        sort_batched(keys.get(), n / 1000, 1000, {.direction = direction, .stable = stable});
        const std::vector<Key> rows = keys.download();
        for (std::size_t a = 0; a < n / 1000; ++a) {
          const std::vector<Key> row(input.begin() + a * 1000, input.begin() + (a + 1) * 1000);
          EXPECT_TRUE(matches_reference(
              std::vector<Key>(rows.begin() + a * 1000, rows.begin() + (a + 1) * 1000),
              tools::reference_sort(row, direction)))
              << label << " sort_batched array " << a << " stable=" << stable;
        }
      }
    }
  }
}

// For compute-sanitizer (see sanitize_test.cpp): the widen and narrow kernels of both word sizes
// around the word sorts, one array's and batched.
TEST(Sanitize, SmallKeys) {
  expect_small_key_sorts<std::int8_t>();
  expect_small_key_sorts<__half>();
}

//! The segmented, batched-record and top-k forms of small keys on one case each (segments from
//! offset 3 with an empty, a short and a long one; few distinct keys, so ties are many), against
//! the stable order of each part: every kernel around their word sorts and the row gathers.
template <class Key>
void expect_small_key_forms() {
  const std::vector<std::uint32_t> bounds = {3, 3, 10, 10000, 10300};
  const std::size_t n = 10310, segments = bounds.size() - 1;
  const std::uint64_t seed = test::case_seed(n, distribution::few);
  const std::vector<Key> input = tools::generate<Key>(n, distribution::few, seed);
  const std::string what = std::string(tools::type_name<Key>()) + " seed " + std::to_string(seed);
  device_array<std::uint32_t> offsets(bounds.size());
  offsets.upload(bounds);
  device_array<Key> keys(n);
  device_array<std::uint32_t> second(n);
  const auto part = [&](std::size_t from, std::size_t to) {
    return std::vector<Key>(input.begin() + std::ptrdiff_t(from),
                            input.begin() + std::ptrdiff_t(to));
  };
  // sort_segments (stable), sort_segments_pairs (values: positions) and argsort_segments.
  keys.upload(input);
  sort_segments(keys.get(), offsets.get(), segments, {.stable = true});
  std::vector<Key> sorted = keys.download();
  keys.upload(input);
  std::vector<std::uint32_t> positions(n);
  for (std::size_t i = 0; i < n; ++i)
    positions[i] = std::uint32_t(i);
  second.upload(positions);
  sort_segments_pairs(keys.get(), second.get(), offsets.get(), segments);
  const std::vector<Key> pair_keys = keys.download();
  const std::vector<std::uint32_t> moved = second.download();
  EXPECT_TRUE(same_bits(std::vector<Key>(pair_keys.begin(), pair_keys.begin() + 3), part(0, 3)))
      << what << ": keys before the first offset changed";
  keys.upload(input);
  argsort_segments(static_cast<const Key*>(keys.get()), second.get(), offsets.get(), segments);
  const std::vector<std::uint32_t> indices = second.download();
  for (std::size_t s = 0; s < segments; ++s) {
    const std::vector<Key> keys_of = part(bounds[s], bounds[s + 1]);
    const std::vector<std::uint64_t> order = test::stable_order(keys_of, order::ascending);
    for (std::size_t j = 0; j < order.size(); ++j) {
      const std::size_t at = bounds[s] + j;
      EXPECT_TRUE(same_bits(std::vector<Key>{sorted[at]}, std::vector<Key>{keys_of[order[j]]}) &&
                  same_bits(std::vector<Key>{pair_keys[at]}, std::vector<Key>{keys_of[order[j]]}) &&
                  moved[at] == bounds[s] + order[j])
          << what << ": segment " << s << " position " << j;
      EXPECT_EQ(indices[at], std::uint32_t(order[j])) << what << ": argsort_segments " << s;
    }
  }
  // argsort_batched with the sorted keys and sort_batched_pairs: 10 arrays of 1031 keys.
  const std::size_t arrays = 10, size = 1031;
  device_array<Key> sorted_keys(arrays * size);
  keys.upload(input);
  argsort_batched(static_cast<const Key*>(keys.get()), sorted_keys.get(), second.get(), arrays,
                  size, {.direction = order::descending});
  const std::vector<std::uint32_t> batched = second.download();
  const std::vector<Key> batched_keys = sorted_keys.download();
  second.upload(positions);
  sort_batched_pairs(keys.get(), second.get(), arrays, size, {.stable = true});
  const std::vector<std::uint32_t> pairs = second.download();
  for (std::size_t a = 0; a < arrays; ++a) {
    const std::vector<Key> row = part(a * size, (a + 1) * size);
    const std::vector<std::uint64_t> down = test::stable_order(row, order::descending);
    const std::vector<std::uint64_t> up = test::stable_order(row, order::ascending);
    for (std::size_t j = 0; j < size; ++j) {
      EXPECT_TRUE(
          batched[a * size + j] == down[j] &&
          same_bits(std::vector<Key>{batched_keys[a * size + j]}, std::vector<Key>{row[down[j]]}) &&
          pairs[a * size + j] == a * size + up[j])
          << what << ": batched array " << a << " position " << j;
    }
  }
  // topk: two arrays of 5000 keys, k of the select path and past it.
  keys.upload(input);
  for (const std::size_t k : {std::size_t{7}, std::size_t{2100}}) {
    device_array<Key> out_keys(2 * k);
    device_array<std::uint32_t> out_indices(2 * k);
    topk(static_cast<const Key*>(keys.get()), 2, 5000, k, out_keys.get(), out_indices.get(),
         {.direction = order::descending});
    EXPECT_TRUE(test::matches_topk(out_keys.download(), out_indices.download(), part(0, 10000), 2,
                                   5000, k, order::descending))
        << what << ": topk k = " << k;
  }
}

// For compute-sanitizer: the segmented, batched-record and top-k forms of small keys.
TEST(Sanitize, SmallKeyForms) {
  expect_small_key_forms<std::int8_t>();
  expect_small_key_forms<__half>();
}

}  // namespace
}  // namespace bitonic
