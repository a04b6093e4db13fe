// Record sorts against std::stable_sort: argsort (both index types), sort_pairs (4- and 8-byte
// values), stable and not, and sort with options.stable. Stable results have exactly one right
// answer, compared bit for bit: the indices, and keys and values gathered by them (-0.0 and +0.0,
// NaNs of every sign and payload keep their input order). Unstable ones are checked as a
// permutation: the keys in order, every value or index once, each beside its own key's bits. Sizes
// around the word sort's regimes, every distribution, both orders, every key type; then workspaces,
// streams and bad arguments.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "common_test.hpp"
#include "device_memory.hpp"

namespace bitonic {
namespace {

using test::device_array;
using test::same_bits;
using test::sorting_indices;
using test::throws_error;
using tools::distribution;

//! `from` gathered through `order`.
template <class T>
std::vector<T> gathered(const std::vector<T>& from, const std::vector<std::uint64_t>& order) {
  std::vector<T> out(order.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    out[i] = from[order[i]];
  return out;
}

//! Sizes around the word sort's regimes: tiny, around its tiles (2^13 and 2^14 8-byte words),
//! around the L2 block, and random ones, fixed by seed. 1- and 2-byte keys, whose records are
//! 4-byte ones underneath, take fewer.
template <class Key>
std::vector<std::size_t> record_sizes() {
  std::vector<std::size_t> sizes = {0, 1, 2, 3, 5, 31, 33, 1000};
  if constexpr (sizeof(Key) <= 2) {
    sizes.insert(sizes.end(), {1023, 16385, 65535, (std::size_t{1} << 20) + 3});
    return sizes;
  }
  for (const unsigned k : {10u, 13u, 14u, 16u, 20u}) {
    const std::size_t power = std::size_t{1} << k;
    sizes.insert(sizes.end(), {power - 1, power, power + 1});
  }
  for (const std::size_t n : test::random_lengths(4, 4, 21, 2026))
    sizes.push_back(n);
  return sizes;
}

//! i -> i * multiplier is a bijection modulo 2^32 and 2^64 (odd), so values made from it tell
//! every record apart and say where they came from.
constexpr std::uint64_t value_multiplier = 0x9e37'79b9'7f4a'7c15ull;

template <class Value>
using value_bits = std::conditional_t<sizeof(Value) == 4, std::uint32_t, std::uint64_t>;

//! The value of record i, of 4 or 8 bytes.
template <class Value>
Value value_of(std::size_t i) {
  using Bits = value_bits<Value>;
  const Bits bits = Bits(Bits(i) * Bits(value_multiplier)) ^ Bits(0x5555u);
  Value v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

//! The record whose value is v: value_of's inverse.
template <class Value>
std::uint64_t record_of(Value v) {
  using Bits = value_bits<Value>;
  Bits bits;
  std::memcpy(&bits, &v, sizeof bits);
  Bits inverse = Bits(value_multiplier);  // Newton: each round doubles the bits that are right
  for (int round = 0; round < 6; ++round)
    inverse = Bits(inverse * Bits(Bits(2) - Bits(Bits(value_multiplier) * inverse)));
  return Bits((bits ^ Bits(0x5555u)) * inverse);
}

template <class Value>
std::vector<Value> distinct_values(std::size_t n) {
  std::vector<Value> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = value_of<Value>(i);
  return values;
}

//! Success when (keys, values) is an unstable sort of (input, distinct_values) in `direction`:
//! the keys in order and every record there once, its key's bits beside its value.
template <class Key, class Value>
::testing::AssertionResult sorted_records(const std::vector<Key>& keys,
                                          const std::vector<Value>& values,
                                          const std::vector<Key>& input, order direction) {
  const std::size_t n = input.size();
  if (keys.size() != n || values.size() != n) {
    return ::testing::AssertionFailure() << "sizes " << keys.size() << ", " << values.size();
  }
  std::vector<bool> seen(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t from = record_of(values[i]);
    if (from >= n || seen[from]) {
      return ::testing::AssertionFailure() << "value at " << i << " is no record's or a repeat";
    }
    seen[from] = true;
    if (std::memcmp(&keys[i], &input[from], sizeof(Key)) != 0) {
      return ::testing::AssertionFailure()
             << "key at " << i << " is 0x" << std::hex << +tools::key_bits(keys[i])
             << ", its value's key is 0x" << +tools::key_bits(input[from]);
    }
    const bool out_of_order =
        i > 0 && (direction == order::ascending ? ascending_less{}(keys[i], keys[i - 1])
                                                : descending_less{}(keys[i], keys[i - 1]));
    if (out_of_order) return ::testing::AssertionFailure() << "keys out of order at " << i;
  }
  return ::testing::AssertionSuccess();
}

std::string describe(std::string_view key, std::size_t n, distribution d, std::uint64_t seed,
                     order direction) {
  return std::string(key) + " n=" + std::to_string(n) +
         " distribution=" + std::string(tools::to_string(d)) + " seed=" + std::to_string(seed) +
         " order=" + std::string(test::to_string(direction));
}

//! check(input, direction) on n keys of distribution d in both orders, each traced; stops at the
//! first fatal failure (the caller tests HasFatalFailure to stop too).
template <class Key, class Check>
void check_both_orders(std::size_t n, distribution d, Check check) {
  const std::uint64_t seed = test::case_seed(n, d);
  const std::vector<Key> input = tools::generate<Key>(n, d, seed);
  for (const order direction : test::all_orders) {
    SCOPED_TRACE(describe(tools::type_name<Key>(), n, d, seed, direction));
    check(input, direction);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

template <class Key>
class Records : public ::testing::Test {};
TYPED_TEST_SUITE(Records, test::record_key_types, test::key_type_names);

TYPED_TEST(Records, ArgsortSortsAndIsStableWhenAsked) {
  using Key = TypeParam;
  for (const std::size_t n : record_sizes<Key>()) {
    device_array<Key> keys(n);
    device_array<std::uint32_t> indices(n);
    device_array<std::uint64_t> wide_indices(n);
    device_array<Key> sorted(n);
    for (const distribution d : tools::all_distributions) {
      const std::uint64_t seed = test::case_seed(n, d);
      const std::vector<Key> input = tools::generate<Key>(n, d, seed);
      keys.upload(input);
      for (const order direction : test::all_orders) {
        const std::vector<std::uint64_t> want = test::stable_order(input, direction);
        const options stable{.direction = direction, .stable = true};
        SCOPED_TRACE(describe(tools::type_name<Key>(), n, d, seed, direction));
        argsort(keys.get(), indices.get(), n, stable);
        const std::vector<std::uint32_t> got = indices.download();
        ASSERT_TRUE(same_bits(std::vector<std::uint64_t>(got.begin(), got.end()), want));
        argsort(keys.get(), indices.get(), n, {.direction = direction});
        ASSERT_TRUE(sorting_indices(indices.download(), input, direction)) << "not stable";
        if (n % 3 == 0 || n < 40) {  // the 8-byte indices on a third of the sizes
          argsort(keys.get(), wide_indices.get(), n, stable);
          ASSERT_TRUE(same_bits(wide_indices.download(), want));
        }
        if (n % 3 == 1 || n < 40) {  // the sorted keys too, on another third
          argsort(keys.get(), sorted.get(), wide_indices.get(), n, stable);
          ASSERT_TRUE(same_bits(wide_indices.download(), want)) << "with the sorted keys";
          ASSERT_TRUE(same_bits(sorted.download(), gathered(input, want))) << "the sorted keys";
          argsort(keys.get(), sorted.get(), wide_indices.get(), n, {.direction = direction});
          const std::vector<Key> sorted_keys = sorted.download();
          ASSERT_TRUE(sorting_indices(wide_indices.download(), input, direction, &sorted_keys))
              << "with the sorted keys, not stable";
        }
        ASSERT_TRUE(same_bits(keys.download(), input)) << "argsort changed the keys";
      }
    }
  }
}

template <class Key, class Value>
void check_pairs(std::size_t n, distribution d, order direction, bool stable) {
  const std::uint64_t seed = test::case_seed(n, d);
  const std::vector<Key> input = tools::generate<Key>(n, d, seed);
  const std::vector<Value> values = distinct_values<Value>(n);
  SCOPED_TRACE(describe(tools::type_name<Key>(), n, d, seed, direction) + " value_bytes=" +
               std::to_string(sizeof(Value)) + " stable=" + std::to_string(stable));
  device_array<Key> keys(n);
  device_array<Value> vals(n);
  keys.upload(input);
  vals.upload(values);
  sort_pairs(keys.get(), vals.get(), n, {.direction = direction, .stable = stable});
  if (stable) {
    const std::vector<std::uint64_t> order = test::stable_order(input, direction);
    ASSERT_TRUE(same_bits(keys.download(), gathered(input, order))) << "keys";
    ASSERT_TRUE(same_bits(vals.download(), gathered(values, order))) << "values";
  } else {
    ASSERT_TRUE(sorted_records(keys.download(), vals.download(), input, direction));
  }
}

TYPED_TEST(Records, SortPairsMovesValuesWithTheirKeys) {
  using Key = TypeParam;
  for (const std::size_t n : record_sizes<Key>()) {
    for (const distribution d : tools::all_distributions) {
      for (const order direction : test::all_orders) {
        check_pairs<Key, std::uint32_t>(n, d, direction, false);
        if (n % 2 == 0 || n < 40) check_pairs<Key, std::uint32_t>(n, d, direction, true);
        if (n % 2 == 1 || n < 40) check_pairs<Key, double>(n, d, direction, false);
        if (n % 3 == 0 || n < 40) check_pairs<Key, double>(n, d, direction, true);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

TYPED_TEST(Records, StableSortKeepsEquivalentKeysInOrder) {
  using Key = TypeParam;
  for (const std::size_t n :
       {std::size_t{2}, std::size_t{1000}, std::size_t{1} << 14, (std::size_t{1} << 20) + 3}) {
    device_array<Key> keys(n);
    for (const distribution d : {distribution::nan, distribution::few, distribution::uniform}) {
      const std::uint64_t seed = test::case_seed(n, d);
      const std::vector<Key> input = tools::generate<Key>(n, d, seed);
      for (const order direction : test::all_orders) {
        SCOPED_TRACE(describe(tools::type_name<Key>(), n, d, seed, direction));
        keys.upload(input);
        sort(keys.get(), n, {.direction = direction, .stable = true});
        ASSERT_TRUE(
            same_bits(keys.download(), gathered(input, test::stable_order(input, direction))));
        std::vector<Key> on_cpu = input;
        sort_on_cpu(on_cpu.data(), n, {.direction = direction, .stable = true});
        ASSERT_TRUE(same_bits(on_cpu, gathered(input, test::stable_order(input, direction))));
        // sort_host: through the device's stable sort, and on the CPU where it does not fit.
        for (const std::size_t max_device_bytes : {std::size_t{0}, std::size_t{4096}}) {
          std::vector<Key> on_host = input;
          sort_host(on_host.data(), n,
                    {.direction = direction, .max_device_bytes = max_device_bytes, .stable = true});
          ASSERT_TRUE(same_bits(on_host, gathered(input, test::stable_order(input, direction))))
              << "sort_host, max_device_bytes " << max_device_bytes;
        }
      }
    }
  }
}

//! Zeros of both signs and NaNs of both signs and several payloads, many of each, shuffled with
//! numbers: the bits that one class of equivalent keys can take.
template <class Float>
std::vector<Float> equivalent_bit_patterns(std::size_t n) {
  using Bits = std::conditional_t<sizeof(Float) == 4, std::uint32_t, std::uint64_t>;
  constexpr Bits sign = Bits{1} << (sizeof(Bits) * 8 - 1);
  constexpr Bits exponent = sizeof(Bits) == 4 ? Bits(0x7f80'0000u) : Bits(0x7ff0'0000'0000'0000ull);
  const Bits patterns[] = {0,
                           sign,
                           exponent | 1,
                           exponent | 12345,
                           sign | exponent | 7,
                           exponent | (exponent >> 1) | 3,
                           exponent,
                           sign | exponent};  // ... then +inf, -inf
  std::vector<Float> keys(n);
  std::uint64_t state = 12345;
  for (std::size_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const unsigned pick = unsigned(state >> 59) % 10;
    if (pick < 8) {
      std::memcpy(&keys[i], &patterns[pick], sizeof(Float));
    } else {
      keys[i] = Float(int(state >> 40) % 5 - 2);
    }
  }
  return keys;
}

template <class Float>
void check_equivalent_bits() {
  for (const std::size_t n : {std::size_t{100}, std::size_t{20000}, std::size_t{1} << 21}) {
    const std::vector<Float> input = equivalent_bit_patterns<Float>(n);
    for (const order direction : test::all_orders) {
      SCOPED_TRACE("n=" + std::to_string(n) + " order=" + std::string(test::to_string(direction)));
      const std::vector<std::uint64_t> want = test::stable_order(input, direction);
      device_array<Float> keys(n);
      device_array<std::uint32_t> values(n);
      keys.upload(input);
      values.upload(distinct_values<std::uint32_t>(n));
      sort_pairs(keys.get(), values.get(), n, {.direction = direction, .stable = true});
      ASSERT_TRUE(same_bits(keys.download(), gathered(input, want)));
      ASSERT_TRUE(same_bits(values.download(), gathered(distinct_values<std::uint32_t>(n), want)));
      keys.upload(input);
      values.upload(distinct_values<std::uint32_t>(n));
      sort_pairs(keys.get(), values.get(), n, {.direction = direction});
      ASSERT_TRUE(sorted_records(keys.download(), values.download(), input, direction));
      keys.upload(input);
      sort(keys.get(), n, {.direction = direction, .stable = true});
      ASSERT_TRUE(same_bits(keys.download(), gathered(input, want)));
    }
  }
}

TEST(RecordsFloat, ZerosAndNaNsKeepTheirInputOrder) {
  check_equivalent_bits<float>();
  check_equivalent_bits<double>();
}

//! 4-byte keys past the word sort's split (2^23 words), where the split reads the records from the
//! caller's arrays and each bucket's last pass writes them back apart (kernels/record_io.cuh):
//! argsort with both index types, with and without the sorted keys, unstable pairs, and what goes
//! through the sorted positions (stable pairs, 8-byte values, the stable float sort), on every
//! distribution and the zeros and NaNs of every bit pattern, both orders.
template <class Key>
class SplitRecords : public ::testing::Test {};
using split_record_key_types = ::testing::Types<std::int32_t, std::uint32_t, float>;
TYPED_TEST_SUITE(SplitRecords, split_record_key_types, test::key_type_names);

//! Argsorts of `input` (in `keys`): stable ones against `want`, its stable order, and unstable
//! ones (the default) by sorting_indices; 32-bit indices, then 64-bit ones with the sorted keys;
//! the keys unchanged.
template <class Key>
void check_argsorts(device_array<Key>& keys, const std::vector<Key>& input,
                    const std::vector<std::uint64_t>& want, order direction) {
  const std::size_t n = input.size();
  const options stable{.direction = direction, .stable = true};
  device_array<Key> sorted(n);
  device_array<std::uint32_t> indices(n);
  device_array<std::uint64_t> wide_indices(n);
  argsort(keys.get(), indices.get(), n, stable);
  const std::vector<std::uint32_t> got = indices.download();
  ASSERT_TRUE(same_bits(std::vector<std::uint64_t>(got.begin(), got.end()), want));
  argsort(keys.get(), sorted.get(), wide_indices.get(), n, stable);
  ASSERT_TRUE(same_bits(wide_indices.download(), want)) << "64-bit indices";
  ASSERT_TRUE(same_bits(sorted.download(), gathered(input, want))) << "the sorted keys";
  sorted.upload(std::vector<Key>(n));
  argsort(keys.get(), sorted.get(), indices.get(), n, stable);
  ASSERT_TRUE(same_bits(sorted.download(), gathered(input, want))) << "the sorted keys, 32-bit";
  argsort(keys.get(), indices.get(), n, {.direction = direction});
  ASSERT_TRUE(sorting_indices(indices.download(), input, direction)) << "not stable";
  argsort(keys.get(), sorted.get(), wide_indices.get(), n, {.direction = direction});
  const std::vector<Key> sorted_keys = sorted.download();
  ASSERT_TRUE(sorting_indices(wide_indices.download(), input, direction, &sorted_keys))
      << "64-bit indices and the sorted keys, not stable";
  ASSERT_TRUE(same_bits(keys.download(), input)) << "argsort changed the keys";
}

//! sort_pairs (not stable) of `input`, uploaded to `keys`, with distinct values of Value, checked
//! by sorted_records.
template <class Value, class Key>
void check_unstable_pairs(device_array<Key>& keys, const std::vector<Key>& input, order direction) {
  const std::size_t n = input.size();
  device_array<Value> values(n);
  keys.upload(input);
  values.upload(distinct_values<Value>(n));
  sort_pairs(keys.get(), values.get(), n, {.direction = direction});
  ASSERT_TRUE(sorted_records(keys.download(), values.download(), input, direction))
      << sizeof(Value) << "-byte values";
}

//! Stable sort_pairs of `input`, uploaded to `keys`, with distinct values of Value, and for
//! floating-point keys the stable sort, against `want`, its stable order.
template <class Value, class Key>
void check_stable_records(device_array<Key>& keys, const std::vector<Key>& input,
                          const std::vector<std::uint64_t>& want, order direction) {
  const std::size_t n = input.size();
  device_array<Value> values(n);
  keys.upload(input);
  values.upload(distinct_values<Value>(n));
  sort_pairs(keys.get(), values.get(), n, {.direction = direction, .stable = true});
  ASSERT_TRUE(same_bits(keys.download(), gathered(input, want))) << "stable pairs' keys";
  ASSERT_TRUE(same_bits(values.download(), gathered(distinct_values<Value>(n), want)))
      << "stable pairs' values";
  if constexpr (std::is_floating_point_v<Key>) {
    keys.upload(input);
    sort(keys.get(), n, {.direction = direction, .stable = true});
    ASSERT_TRUE(same_bits(keys.download(), gathered(input, want))) << "stable sort";
  }
}

template <class Key>
void check_split_records(const std::vector<Key>& input, order direction) {
  const std::size_t n = input.size();
  const std::vector<std::uint64_t> want = test::stable_order(input, direction);
  device_array<Key> keys(n);
  keys.upload(input);
  check_argsorts(keys, input, want, direction);
  if (::testing::Test::HasFatalFailure()) return;
  check_unstable_pairs<std::uint32_t>(keys, input, direction);
  if (::testing::Test::HasFatalFailure()) return;
  // Through the positions the last passes write: stable pairs, 8-byte values, stable floats.
  check_stable_records<std::uint32_t>(keys, input, want, direction);
  if (::testing::Test::HasFatalFailure()) return;
  check_unstable_pairs<std::uint64_t>(keys, input, direction);
}

TYPED_TEST(SplitRecords, TheSplitReadsAndTheLastPassesWriteTheRecords) {
  using Key = TypeParam;
  const std::size_t n = (std::size_t{1} << 23) + 4097;
  for (const distribution d : tools::all_distributions) {
    check_both_orders<Key>(n, d, check_split_records<Key>);
    if (::testing::Test::HasFatalFailure()) return;
  }
  const std::size_t power = std::size_t{1} << 24;
  const std::uint64_t seed = test::case_seed(power, distribution::uniform);
  SCOPED_TRACE(
      describe(tools::type_name<Key>(), power, distribution::uniform, seed, order::ascending));
  check_split_records(tools::generate<Key>(power, distribution::uniform, seed), order::ascending);
}

TEST(SplitRecordsFloat, ZerosAndNaNsOfEveryPattern) {
  const std::vector<float> input = equivalent_bit_patterns<float>((std::size_t{1} << 23) + 99);
  for (const order direction : test::all_orders) {
    SCOPED_TRACE("order=" + std::string(test::to_string(direction)));
    check_split_records(input, direction);
  }
}

//! Keys of a narrow range past the refinement (2^24 records), whose tiles sort as 32-bit words of
//! key offset and slot (kernels/compact_record_tile.cuh): equal keys in runs of every length up
//! to tuning::compact_record_tile::max_run, and just past it. In an unstable sort a tile that is
//! its sub-bucket's last pass leaves them in slot order; the tiles of sub-buckets longer than a
//! tile (the refinement's sample leaves a few, by chance) rank their runs' values, or past
//! max_run sort as 64-bit words after all; the stable sorts' tiles keep their positions' order.
//! And half the array of a wide range, whose tiles sort as 64-bit words.
//! Key k of a narrow input is the number r(k) drawn from [0, span): a random one, or, for runs of
//! run_length, k's place in a random permutation over run_length; less half the span for signed
//! and float keys.
template <class Key>
std::vector<Key> narrow_keys(std::size_t n, std::uint64_t span, std::uint64_t run_length,
                             bool wide_half, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> draws(n);
  if (run_length == 0) {
    for (auto& d : draws)
      d = rng() % span;
  } else {
    for (std::size_t i = 0; i < n; ++i)
      draws[i] = (i / run_length) % span;
    std::shuffle(draws.begin(), draws.end(), rng);
  }
  const std::vector<Key> wide = tools::generate<Key>(n, distribution::uniform, seed);
  std::vector<Key> keys(n);
  const auto offset = std::is_unsigned_v<Key> ? 0 : std::int64_t(span / 2);
  for (std::size_t i = 0; i < n; ++i)
    keys[i] = wide_half && i % 2 == 1 ? wide[i] : Key(std::int64_t(draws[i]) - offset);
  return keys;
}

TYPED_TEST(SplitRecords, NarrowKeysSortAsThirtyTwoBitWords) {
  using Key = TypeParam;
  const std::size_t n = (std::size_t{1} << 24) + 4097;
  struct narrow_case {
    std::uint64_t span, run_length;
    bool wide_half, every_key_type;
  };
  constexpr std::uint64_t max_run = 32;  // tuning::compact_record_tile::max_run
  for (const narrow_case c : {narrow_case{1u << 20, 0, false, true},
                              {1u << 24, 0, true, true},
                              {1u << 25, max_run, false, false},
                              {1u << 25, max_run + 1, false, false},
                              {1u << 25, 7, false, false}}) {
    if (!c.every_key_type && !std::is_same_v<Key, std::int32_t>) continue;
    const std::uint64_t seed = 2026'1129 + c.span + c.run_length;
    const std::vector<Key> input = narrow_keys<Key>(n, c.span, c.run_length, c.wide_half, seed);
    for (const order direction : test::all_orders) {
      SCOPED_TRACE("span=" + std::to_string(c.span) + " run=" + std::to_string(c.run_length) +
                   " wide_half=" + std::to_string(c.wide_half) + " seed=" + std::to_string(seed) +
                   " order=" + std::string(test::to_string(direction)));
      check_split_records(input, direction);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

//! Unstable pairs, argsort, stable pairs and the stable sort of 8-byte keys past
//! tuning::wide_records' counts, which sort as 16-byte words (the key's word high, the value or
//! position low: kernels/record_io.cuh's wide_record_io) through the split, its refinement, the
//! first pass and the merges: 8- and 4-byte values and indices, every distribution, both orders,
//! sizes on both sides of the thresholds, the zeros and NaNs of every bit pattern.
template <class Key>
class WideRecords : public ::testing::Test {};
using wide_record_key_types = ::testing::Types<std::int64_t, std::uint64_t, double>;
TYPED_TEST_SUITE(WideRecords, wide_record_key_types, test::key_type_names);

template <class Key>
void check_wide_records(const std::vector<Key>& input, order direction) {
  device_array<Key> keys(input.size());
  check_unstable_pairs<std::uint64_t>(keys, input, direction);
  if (::testing::Test::HasFatalFailure()) return;
  check_unstable_pairs<std::uint32_t>(keys, input, direction);
  if (::testing::Test::HasFatalFailure()) return;
  // argsort, stable pairs and the stable sort of doubles: the key's class word beside its
  // position; the positions the last passes write, then gathers.
  const std::vector<std::uint64_t> want = test::stable_order(input, direction);
  keys.upload(input);
  check_argsorts(keys, input, want, direction);
  if (::testing::Test::HasFatalFailure()) return;
  check_stable_records<std::uint64_t>(keys, input, want, direction);
}

TYPED_TEST(WideRecords, RecordsOfEightByteKeysSortAsSixteenByteWords) {
  using Key = TypeParam;
  // Around the thresholds (pairs from 2^19, argsort from 2^22: tuning::wide_records) and the
  // refinement's (2^22), and a random size past them.
  std::vector<std::size_t> sizes = {(std::size_t{1} << 19) - 1, (std::size_t{1} << 19) + 4097,
                                    (std::size_t{1} << 22) - 1, (std::size_t{1} << 22) + 4097};
  for (const std::size_t n : test::random_lengths(1, 22, 24, 2026))
    sizes.push_back(n);
  for (const std::size_t n : sizes) {
    // Every distribution past both thresholds; elsewhere uniform and few-valued keys.
    const bool every = n == sizes[3];
    for (const distribution d : tools::all_distributions) {
      if (!every && d != distribution::uniform && d != distribution::few) continue;
      check_both_orders<Key>(n, d, check_wide_records<Key>);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(WideRecordsDouble, ZerosAndNaNsOfEveryPattern) {
  const std::vector<double> input = equivalent_bit_patterns<double>((std::size_t{1} << 22) + 99);
  for (const order direction : test::all_orders) {
    SCOPED_TRACE("order=" + std::string(test::to_string(direction)));
    check_wide_records(input, direction);
  }
}

TEST(RecordsAlgorithms, EveryAlgorithmSortsTheWords) {
  for (const algorithm algo : test::all_algorithms) {
    for (const std::size_t n : {std::size_t{5000}, std::size_t{70001}}) {
      const std::vector<std::int64_t> input = tools::generate<std::int64_t>(
          n, distribution::few, test::case_seed(n, distribution::few));
      device_array<std::int64_t> keys(n);
      device_array<std::uint32_t> indices(n);
      keys.upload(input);
      argsort(keys.get(), indices.get(), n, {.algo = algo, .stable = true});
      const std::vector<std::uint32_t> got = indices.download();
      EXPECT_TRUE(same_bits(std::vector<std::uint64_t>(got.begin(), got.end()),
                            test::stable_order(input, order::ascending)))
          << to_string(algo) << " n=" << n;
    }
  }
}

//! `base` with all of `workspace` as its workspace.
options on_workspace(options base, device_buffer<std::byte>& workspace) {
  base.workspace = workspace.get();
  base.workspace_bytes = workspace.size();
  return base;
}

TEST(RecordsWorkspace, ExactWorkspaceOnAStreamAllocatesNothingElse) {
  const std::size_t n = (std::size_t{1} << 22) + 17;  // past the L2 block: the word sort merges
  const std::vector<float> input =
      tools::generate<float>(n, distribution::nan, test::case_seed(n, distribution::nan));
  const std::vector<std::uint64_t> values = distinct_values<std::uint64_t>(n);
  const cuda_stream stream;
  const options base{.direction = order::descending, .stream = stream.get(), .stable = true};
  const std::size_t bytes = pairs_workspace_bytes<float, std::uint64_t>(n, base);
  ASSERT_GT(bytes, n * (8 + 4 + 8));
  device_buffer<std::byte> workspace(bytes);
  options opt = on_workspace(base, workspace);
  device_array<float> keys(n);
  device_array<std::uint64_t> vals(n);
  keys.upload(input, stream.get());
  vals.upload(values, stream.get());
  const std::size_t cached_before = cached_memory_bytes();
  sort_pairs(keys.get(), vals.get(), n, opt);
  const std::vector<std::uint64_t> want = test::stable_order(input, order::descending);
  EXPECT_TRUE(same_bits(keys.download(stream.get()), gathered(input, want)));
  EXPECT_TRUE(same_bits(vals.download(stream.get()), gathered(values, want)));
  EXPECT_EQ(cached_memory_bytes(), cached_before) << "a call with a workspace allocated";

  device_array<std::uint32_t> indices(n);
  opt.workspace_bytes = argsort_workspace_bytes<float, std::uint32_t>(n, base);
  keys.upload(input, stream.get());
  argsort(keys.get(), indices.get(), n, opt);
  const std::vector<std::uint32_t> got = indices.download(stream.get());
  EXPECT_TRUE(same_bits(std::vector<std::uint64_t>(got.begin(), got.end()), want));

  opt.workspace_bytes = bytes - 1;
  keys.upload(input, stream.get());
  EXPECT_TRUE(throws_error([&] { sort_pairs(keys.get(), vals.get(), n, opt); },
                           {std::to_string(bytes), "pairs_workspace_bytes"}));
  EXPECT_TRUE(same_bits(keys.download(stream.get()), input)) << "keys changed by a refused call";
}

TEST(RecordsWorkspace, UnstablePairsOfFourBytesSortTheRecordsThemselves) {
  const std::size_t n = (std::size_t{1} << 22) + 5;
  const std::vector<std::int32_t> input =
      tools::generate<std::int32_t>(n, distribution::few, test::case_seed(n, distribution::few));
  const options base{.direction = order::descending};
  const std::size_t bytes = pairs_workspace_bytes<std::int32_t, std::uint32_t>(n, base);
  const std::size_t stable_bytes =
      pairs_workspace_bytes<std::int32_t, std::uint32_t>(n, {.stable = true});
  EXPECT_LT(bytes, stable_bytes) << "no copy of the values to gather from";
  device_buffer<std::byte> workspace(bytes);
  options opt = on_workspace(base, workspace);
  device_array<std::int32_t> keys(n);
  device_array<std::uint32_t> vals(n);
  keys.upload(input);
  vals.upload(distinct_values<std::uint32_t>(n));
  const std::size_t cached_before = cached_memory_bytes();
  sort_pairs(keys.get(), vals.get(), n, opt);
  EXPECT_TRUE(sorted_records(keys.download(), vals.download(), input, order::descending));
  EXPECT_EQ(cached_memory_bytes(), cached_before) << "a call with a workspace allocated";
}

// Pairs of 8-byte keys sorted as 16-byte words (WideRecords), unstable and stable, in exactly the
// workspace that pairs_workspace_bytes names allocate nothing; one byte less is refused with that
// size and the data untouched.
TEST(RecordsWorkspace, WidePairsInAnExactWorkspace) {
  const std::size_t n = (std::size_t{1} << 22) + 5;
  const std::vector<std::int64_t> input = tools::generate<std::int64_t>(
      n, distribution::uniform, test::case_seed(n, distribution::uniform));
  const cuda_stream stream;
  const options base{.direction = order::descending, .stream = stream.get()};
  const std::size_t bytes = pairs_workspace_bytes<std::int64_t, std::uint64_t>(n, base);
  device_buffer<std::byte> workspace(bytes);
  options opt = on_workspace(base, workspace);
  device_array<std::int64_t> keys(n);
  device_array<std::uint64_t> vals(n);
  keys.upload(input, stream.get());
  vals.upload(distinct_values<std::uint64_t>(n), stream.get());
  const std::size_t cached_before = cached_memory_bytes();
  sort_pairs(keys.get(), vals.get(), n, opt);
  EXPECT_TRUE(sorted_records(keys.download(stream.get()), vals.download(stream.get()), input,
                             order::descending));
  EXPECT_EQ(cached_memory_bytes(), cached_before) << "a call with a workspace allocated";
  opt.workspace_bytes = bytes - 1;
  keys.upload(input, stream.get());
  EXPECT_TRUE(throws_error([&] { sort_pairs(keys.get(), vals.get(), n, opt); },
                           {std::to_string(bytes), "pairs_workspace_bytes"}));
  EXPECT_TRUE(same_bits(keys.download(stream.get()), input)) << "keys changed by a refused call";
  // Stable: the positions from the words, copies of the values and gathers, in its own size.
  options stable = base;
  stable.stable = true;
  device_buffer<std::byte> stable_workspace(
      pairs_workspace_bytes<std::int64_t, std::uint64_t>(n, stable));
  vals.upload(distinct_values<std::uint64_t>(n), stream.get());
  sort_pairs(keys.get(), vals.get(), n, on_workspace(stable, stable_workspace));
  const std::vector<std::uint64_t> want = test::stable_order(input, order::descending);
  EXPECT_TRUE(same_bits(keys.download(stream.get()), gathered(input, want)));
  EXPECT_TRUE(
      same_bits(vals.download(stream.get()), gathered(distinct_values<std::uint64_t>(n), want)));
  EXPECT_EQ(cached_memory_bytes(), cached_before) << "a stable call with a workspace allocated";
}

// 1- and 2-byte keys' record sorts run on 4-byte ones in their own scratch: given exactly the
// workspace their sizing function names they allocate nothing; one byte less is refused with that
// size and the data untouched. Stable __half pairs (an argsort and gathers) and int8 argsort with
// the sorted keys, on a stream.
TEST(RecordsWorkspace, SmallKeysInAnExactWorkspace) {
  const std::size_t n = (std::size_t{1} << 20) + 9;
  const cuda_stream stream;
  const options base{.direction = order::descending, .stream = stream.get(), .stable = true};
  const std::vector<__half> halves =
      tools::generate<__half>(n, distribution::nan, test::case_seed(n, distribution::nan));
  const std::vector<std::uint64_t> want_halves = test::stable_order(halves, order::descending);
  const std::vector<std::uint64_t> values = distinct_values<std::uint64_t>(n);
  const std::size_t bytes = pairs_workspace_bytes<__half, std::uint64_t>(n, base);
  device_buffer<std::byte> workspace(bytes);
  options opt = on_workspace(base, workspace);
  device_array<__half> keys(n);
  device_array<std::uint64_t> vals(n);
  keys.upload(halves, stream.get());
  vals.upload(values, stream.get());
  const std::size_t cached_before = cached_memory_bytes();
  sort_pairs(keys.get(), vals.get(), n, opt);
  EXPECT_TRUE(same_bits(keys.download(stream.get()), gathered(halves, want_halves)));
  EXPECT_TRUE(same_bits(vals.download(stream.get()), gathered(values, want_halves)));
  EXPECT_EQ(cached_memory_bytes(), cached_before) << "a call with a workspace allocated";
  opt.workspace_bytes = bytes - 1;
  keys.upload(halves, stream.get());
  EXPECT_TRUE(throws_error([&] { sort_pairs(keys.get(), vals.get(), n, opt); },
                           {std::to_string(bytes), "pairs_workspace_bytes"}));
  EXPECT_TRUE(same_bits(keys.download(stream.get()), halves)) << "keys changed by a refused call";

  const std::vector<std::int8_t> bytes_in =
      tools::generate<std::int8_t>(n, distribution::uniform, 91);
  const std::vector<std::uint64_t> want_bytes = test::stable_order(bytes_in, order::descending);
  device_array<std::int8_t> small(n);
  device_array<std::int8_t> sorted(n);
  device_array<std::uint32_t> indices(n);
  small.upload(bytes_in, stream.get());
  opt.workspace_bytes = argsort_workspace_bytes<std::int8_t, std::uint32_t>(n, base);
  ASSERT_LE(opt.workspace_bytes, bytes);
  argsort(small.get(), sorted.get(), indices.get(), n, opt);
  const std::vector<std::uint32_t> got = indices.download(stream.get());
  EXPECT_TRUE(same_bits(std::vector<std::uint64_t>(got.begin(), got.end()), want_bytes));
  EXPECT_TRUE(same_bits(sorted.download(stream.get()), gathered(bytes_in, want_bytes)));
  EXPECT_EQ(cached_memory_bytes(), cached_before) << "a call with a workspace allocated";
  const std::size_t argsort_bytes = opt.workspace_bytes;
  opt.workspace_bytes = argsort_bytes - 1;
  EXPECT_TRUE(throws_error([&] { argsort(small.get(), indices.get(), n, opt); },
                           {std::to_string(argsort_bytes), "argsort_workspace_bytes"}));
  EXPECT_TRUE(throws_error([&] { argsort(small.get(), small.get(), indices.get(), n); },
                           {"d_keys and d_sorted_keys overlap"}));
  EXPECT_TRUE(throws_error(
      [&] { argsort(small.get(), reinterpret_cast<std::uint32_t*>(small.get() + 8), n / 4 - 2); },
      {"d_keys and d_indices overlap"}));
}

TEST(RecordsErrors, BadArgumentsLeaveTheDataAlone) {
  const std::size_t n = 1000;
  const std::vector<std::int32_t> input =
      tools::generate<std::int32_t>(n, distribution::uniform, 7);
  device_array<std::int32_t> keys(2 * n);
  device_array<std::uint32_t> values(n);
  keys.upload(input);
  std::vector<std::uint32_t> host_values(n, 5);
  EXPECT_TRUE(throws_error([&] { sort_pairs(keys.get(), static_cast<std::uint32_t*>(nullptr), n); },
                           {"bitonic::sort_pairs", "d_values is null"}));
  EXPECT_TRUE(throws_error([&] { sort_pairs(keys.get(), host_values.data(), n); },
                           {"bitonic::sort_pairs", "host pointer"}));
  EXPECT_TRUE(throws_error(
      [&] { sort_pairs(keys.get(), reinterpret_cast<std::uint32_t*>(keys.get() + 10), n); },
      {"d_keys and d_values overlap"}));
  EXPECT_TRUE(throws_error(
      [&] { argsort(keys.get(), reinterpret_cast<std::uint32_t*>(keys.get() + n - 1), n); },
      {"d_keys and d_indices overlap"}));
  EXPECT_TRUE(throws_error([&] { argsort(keys.get(), static_cast<std::uint64_t*>(nullptr), n); },
                           {"bitonic::argsort", "d_indices is null"}));
  EXPECT_TRUE(throws_error([&] { argsort(keys.get(), keys.get() + n / 2, values.get(), n); },
                           {"d_keys and d_sorted_keys overlap"}));
  EXPECT_TRUE(throws_error(
      [&] { argsort(keys.get(), reinterpret_cast<std::int32_t*>(values.get()), values.get(), n); },
      {"d_indices and d_sorted_keys overlap"}));
  std::vector<std::int32_t> host_sorted(n);
  EXPECT_TRUE(throws_error(
      [&] { argsort_batched(keys.get(), host_sorted.data(), values.get(), 10, n / 10); },
      {"bitonic::argsort_batched", "d_sorted_keys", "host pointer"}));
  EXPECT_TRUE(throws_error(
      [&] { (void)pairs_workspace_bytes<std::int32_t, std::int32_t>((std::size_t{1} << 32) + 1); },
      "2^32"));
  EXPECT_TRUE(throws_error(
      [&] { argsort(keys.get(), values.get(), n, {.direction = static_cast<order>(7)}); },
      "options.direction"));
  std::vector<std::int32_t> host(input);
  EXPECT_NO_THROW(sort_host(host.data(), n, {.stable = true}))
      << "integer keys: stable is the same sort, sort_host takes it";
  EXPECT_TRUE(test::matches_reference(host, tools::reference_sort(input, order::ascending)));
  std::vector<std::int32_t> after = keys.download();
  after.resize(n);
  EXPECT_TRUE(same_bits(after, input)) << "keys changed by refused calls";
}

}  // namespace
}  // namespace bitonic
