// 1- and 2-byte keys: their words (network/small_key_order.hpp) over every bit pattern, the order
// of __half and __nv_bfloat16 against float's, and sort_on_cpu and sort_host (on the CPU without a
// GPU) against std::sort on every distribution, both orders, the sizes around powers of two and
// random sizes.
#include "network/small_key_order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "common_test.hpp"

namespace bitonic {
namespace {

using tools::distribution;

//! The unsigned integer of Key's size: its bit patterns.
template <class Key>
using bits_t = std::conditional_t<sizeof(Key) == 1, std::uint8_t, std::uint16_t>;

template <class Key>
Key key_of_bits(bits_t<Key> bits) {
  return std::bit_cast<Key>(bits);
}

//! Every bit pattern of Key, as keys, in the order of their bits.
template <class Key>
std::vector<Key> every_key() {
  std::vector<Key> keys;
  for (std::uint32_t b = 0; b < (std::uint32_t{1} << (8 * sizeof(Key))); ++b) {
    keys.push_back(key_of_bits<Key>(bits_t<Key>(b)));
  }
  return keys;
}

template <class Key>
class SmallKeyWords : public ::testing::Test {};
TYPED_TEST_SUITE(SmallKeyWords, test::small_key_types, test::key_type_names);

// The word map is a bijection onto [0, 2^bits): every pattern has its own word, zero-extended,
// and narrows back to the same bits (NaN payloads and -0.0 included).
TYPED_TEST(SmallKeyWords, RoundTripEveryPatternBitForBit) {
  using Key = TypeParam;
  constexpr std::uint32_t patterns = std::uint32_t{1} << (8 * sizeof(Key));
  std::vector<bool> taken(patterns, false);
  for (const Key k : every_key<Key>()) {
    const std::uint32_t w = small_word(k);
    ASSERT_LT(w, patterns) << "bits 0x" << std::hex << +tools::key_bits(k);
    EXPECT_FALSE(taken[w]) << "two patterns share word 0x" << std::hex << w;
    taken[w] = true;
    EXPECT_EQ(tools::key_bits(from_small_word<Key>(w)), tools::key_bits(k))
        << "bits 0x" << std::hex << +tools::key_bits(k);
  }
}

// Ascending words never contradict ascending_less: walking the words in order, no key is less than
// the one before it (with a strict weak order this makes `<` on words refine the key order), and
// for integers each key is greater than the one before.
TYPED_TEST(SmallKeyWords, WordsRefineTheKeyOrder) {
  using Key = TypeParam;
  constexpr std::uint32_t patterns = std::uint32_t{1} << (8 * sizeof(Key));
  const ascending_less less;
  Key previous = from_small_word<Key>(0);
  for (std::uint32_t w = 1; w < patterns; ++w) {
    const Key k = from_small_word<Key>(w);
    ASSERT_FALSE(less(k, previous)) << "word 0x" << std::hex << w << " (bits 0x"
                                    << +tools::key_bits(k) << ") is less than the word before";
    if constexpr (std::is_integral_v<Key>) {
      ASSERT_TRUE(less(previous, k)) << "word 0x" << std::hex << w;
    }
    previous = k;
  }
  if constexpr (std::is_integral_v<Key>) {
    EXPECT_EQ(from_small_word<Key>(0), std::numeric_limits<Key>::min());
    EXPECT_EQ(from_small_word<Key>(patterns - 1), std::numeric_limits<Key>::max());
  }
}

template <class Key>
class HalfFloatOrder : public ::testing::Test {};
using half_float_types = ::testing::Types<__half, __nv_bfloat16>;
TYPED_TEST_SUITE(HalfFloatOrder, half_float_types, test::key_type_names);

//! A sample of patterns to pair with every pattern: every 97th, the boundaries of the exponent
//! range, both zeros, infinities and NaNs with small and large payloads of both signs.
template <class Key>
std::vector<Key> sample_keys() {
  const std::uint16_t infinity = std::is_same_v<Key, __half> ? 0x7c00 : 0x7f80;
  std::vector<std::uint16_t> bits = {0,
                                     1,
                                     0x8000,
                                     0x8001,
                                     infinity,
                                     std::uint16_t(infinity - 1),
                                     std::uint16_t(infinity + 1),
                                     0x7fff,
                                     std::uint16_t(infinity | 0x8000),
                                     std::uint16_t((infinity - 1) | 0x8000),
                                     std::uint16_t((infinity + 1) | 0x8000),
                                     0xffff};
  for (std::uint32_t b = 0; b < 0x10000; b += 97)
    bits.push_back(std::uint16_t(b));
  std::vector<Key> keys;
  for (const std::uint16_t b : bits)
    keys.push_back(key_of_bits<Key>(b));
  return keys;
}

// ascending_less on 2-byte floats is float's order of their values (the conversion is exact):
// every pattern against the sample, both ways.
TYPED_TEST(HalfFloatOrder, AscendingLessIsFloatsOrder) {
  using Key = TypeParam;
  const ascending_less less;
  const descending_less greater;
  const std::vector<Key> sample = sample_keys<Key>();
  for (const Key a : every_key<Key>()) {
    for (const Key b : sample) {
      const float x = float(a), y = float(b);
      ASSERT_EQ(less(a, b), less(x, y))
          << std::hex << "bits 0x" << tools::key_bits(a) << " and 0x" << tools::key_bits(b);
      ASSERT_EQ(greater(a, b), less(y, x))
          << std::hex << "bits 0x" << tools::key_bits(a) << " and 0x" << tools::key_bits(b);
    }
  }
}

TYPED_TEST(HalfFloatOrder, NaNsLastAndSignedZerosEquivalent) {
  using Key = TypeParam;
  const bool half = std::is_same_v<Key, __half>;
  const std::uint16_t infinity = half ? 0x7c00 : 0x7f80;
  const std::uint16_t quiet = half ? 0x200 : 0x40;
  const Key nan = key_of_bits<Key>(infinity | quiet), negative_nan = key_of_bits<Key>(0xffff);
  const Key inf = key_of_bits<Key>(infinity), minus_inf = key_of_bits<Key>(infinity | 0x8000);
  const Key zero = key_of_bits<Key>(0), minus_zero = key_of_bits<Key>(0x8000);
  const ascending_less less;
  EXPECT_TRUE(less(inf, nan));
  EXPECT_TRUE(less(inf, negative_nan)) << "a NaN's sign does not put it first";
  EXPECT_FALSE(less(nan, negative_nan));
  EXPECT_FALSE(less(negative_nan, nan));
  EXPECT_FALSE(less(minus_zero, zero));
  EXPECT_FALSE(less(zero, minus_zero));
  EXPECT_TRUE(less(minus_inf, minus_zero));
  EXPECT_TRUE(descending_less{}(nan, inf)) << "NaNs first when descending";
  // The words: every NaN above +inf, -0.0 just below +0.0.
  EXPECT_LT(small_word(inf), small_word(nan));
  EXPECT_LT(small_word(inf), small_word(negative_nan));
  EXPECT_EQ(small_word(minus_zero) + 1, small_word(zero));
  EXPECT_EQ(small_word(minus_inf), 0u) << "the negative NaNs are rotated above the positive ones";
  const Key top = from_small_word<Key>(0xffff);
  EXPECT_EQ(tools::key_bits(top), infinity | 0x8001u)
      << "the last word: the negative NaN of the smallest payload";
}

// The class word (what a stable sort orders by) is ascending_less exactly: equal words for
// equivalent keys, `<` for less.
TYPED_TEST(HalfFloatOrder, ClassWordsAreTheOrder) {
  using Key = TypeParam;
  const ascending_less less;
  const std::vector<Key> sample = sample_keys<Key>();
  for (const Key a : every_key<Key>()) {
    for (const Key b : sample) {
      ASSERT_EQ(half_class_word(a) < half_class_word(b), less(a, b))
          << std::hex << "bits 0x" << tools::key_bits(a) << " and 0x" << tools::key_bits(b);
    }
  }
}

// A stable word orders by class (reversed when descending), then position, and keeps the bits.
TYPED_TEST(HalfFloatOrder, StableWordsOrderByKeyThenPosition) {
  using Key = TypeParam;
  const std::vector<Key> sample = sample_keys<Key>();
  const std::uint64_t positions[] = {0, 1, 77, (std::uint64_t{1} << 32) - 2};  // and one more
  for (const bool descending : {false, true}) {
    for (const Key a : sample) {
      for (const std::uint64_t p : positions) {
        const std::uint64_t w = stable_half_word(a, p, descending);
        ASSERT_EQ(tools::key_bits(from_stable_half_word<Key>(w)), tools::key_bits(a));
        ASSERT_EQ((w >> 16) & 0xffff'ffffu, p);
        for (const Key b : sample) {
          const std::uint64_t v = stable_half_word(b, p + 1, descending);
          const bool before = descending ? descending_less{}(a, b) : ascending_less{}(a, b);
          const bool after = descending ? descending_less{}(b, a) : ascending_less{}(b, a);
          ASSERT_EQ(w < v, before || !after)
              << std::hex << "bits 0x" << tools::key_bits(a) << " and 0x" << tools::key_bits(b);
        }
      }
    }
  }
}

//! What every sort of these keys gives bit for bit: the keys in the order of their words (words
//! are a bijection, so this order is unique), descending reversed.
template <class Key>
std::vector<Key> word_order(std::vector<Key> keys, order direction) {
  std::sort(keys.begin(), keys.end(), [&](Key a, Key b) {
    return direction == order::ascending ? small_word(a) < small_word(b)
                                         : small_word(b) < small_word(a);
  });
  return keys;
}

//! Lengths 0, 1, 2 and 2^k - 1, 2^k, 2^k + 1 for k = 2..max_log2.
std::vector<std::size_t> power_of_two_lengths(unsigned max_log2) {
  std::vector<std::size_t> lengths = {0, 1, 2};
  for (unsigned k = 2; k <= max_log2; ++k) {
    const std::size_t p = std::size_t{1} << k;
    lengths.insert(lengths.end(), {p - 1, p, p + 1});
  }
  return lengths;
}

//! Sorts every length with every distribution in both orders (and every algorithm where
//! `algorithms`) with `sort`, on all cores; checks each against std::sort and against the word
//! order bit for bit.
template <class Key, class Sort>
void expect_sorts(const std::vector<std::size_t>& lengths, bool algorithms, Sort sort) {
  struct job {
    std::size_t n;
    distribution d;
    order direction;
    algorithm algo;
  };
  std::vector<job> jobs;
  for (const std::size_t n : lengths) {
    for (const distribution d : tools::all_distributions) {
      for (const order direction : test::all_orders) {
        if (!algorithms) {
          jobs.push_back({n, d, direction, algorithm::automatic});
          continue;
        }
        for (const algorithm algo : test::all_algorithms)
          jobs.push_back({n, d, direction, algo});
      }
    }
  }
  std::vector<::testing::AssertionResult> verdicts(jobs.size(), ::testing::AssertionSuccess());
  test::parallel_for(jobs.size(), [&](std::size_t i) {
    const job& j = jobs[i];
    const std::vector<Key> input = tools::generate<Key>(j.n, j.d, test::case_seed(j.n, j.d));
    std::vector<Key> result = input;
    sort(result, options{.direction = j.direction, .algo = j.algo});
    verdicts[i] = test::matches_reference(result, tools::reference_sort(input, j.direction));
    const std::vector<Key> exact = word_order(input, j.direction);
    for (std::size_t at = 0; verdicts[i] && at < result.size(); ++at) {
      if (tools::key_bits(result[at]) != tools::key_bits(exact[at])) {
        verdicts[i] = ::testing::AssertionFailure() << "bits differ from the word order at " << at;
      }
    }
  });
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const job& j = jobs[i];
    EXPECT_TRUE(verdicts[i]) << test::describe_case<Key>(j.n, j.d, test::case_seed(j.n, j.d),
                                                         j.direction, j.algo);
  }
}

template <class Key>
class SmallKeysOnCpu : public ::testing::Test {};
TYPED_TEST_SUITE(SmallKeysOnCpu, test::small_key_types, test::key_type_names);

const auto on_cpu = [](auto& keys, const options& opt) {
  sort_on_cpu(keys.data(), keys.size(), opt);
};

TYPED_TEST(SmallKeysOnCpu, LengthsAroundPowersOfTwoEveryAlgorithm) {
  expect_sorts<TypeParam>(power_of_two_lengths(12), true, on_cpu);
}

// Random lengths from 2^12 to 2^18 (two a type, fixed seed), automatic only.
TYPED_TEST(SmallKeysOnCpu, RandomLengths) {
  constexpr std::uint64_t lengths_seed = 20261125;
  const std::vector<std::size_t> lengths = test::random_lengths(12, 12, 18, lengths_seed);
  const std::size_t first = test::key_type_index<TypeParam>() - 6;
  expect_sorts<TypeParam>({lengths[first], lengths[first + 6]}, false, on_cpu);
}

// Where there is no GPU sort_host sorts on the CPU (with one, through the device sort): either
// way the result of sort_on_cpu.
TYPED_TEST(SmallKeysOnCpu, SortHostSortsLikeSortOnCpu) {
  expect_sorts<TypeParam>({0, 1, 2, 777, 20000}, false, [](auto& keys, const options& opt) {
    sort_host(keys.data(), keys.size(), opt);
  });
}

// opt.stable: 2-byte floats keep equivalent keys (-0.0 and +0.0, NaN payloads) in input order,
// exactly as std::stable_sort; integers sort the same as without it.
TYPED_TEST(SmallKeysOnCpu, StableKeepsEquivalentKeysInInputOrder) {
  using Key = TypeParam;
  for (const std::size_t n : {std::size_t{2}, std::size_t{1000}, std::size_t{4097}}) {
    for (const distribution d : {distribution::nan, distribution::few, distribution::uniform}) {
      for (const order direction : test::all_orders) {
        const std::uint64_t seed = test::case_seed(n, d);
        const std::vector<Key> input = tools::generate<Key>(n, d, seed);
        std::vector<Key> expected = input;
        if (direction == order::ascending) {
          std::stable_sort(expected.begin(), expected.end(), ascending_less{});
        } else {
          std::stable_sort(expected.begin(), expected.end(), descending_less{});
        }
        std::vector<Key> result = input;
        sort_on_cpu(result.data(), n, {.direction = direction, .stable = true});
        std::vector<bits_t<Key>> got(n), want(n);
        std::transform(result.begin(), result.end(), got.begin(), tools::key_bits<Key>);
        std::transform(expected.begin(), expected.end(), want.begin(), tools::key_bits<Key>);
        EXPECT_EQ(got, want) << test::describe_case<Key>(n, d, seed, direction,
                                                         algorithm::automatic)
                             << " stable";
      }
    }
  }
}

TEST(SmallKeysErrors, BadArgumentsAreRejectedWithTheKeysUntouched) {
  EXPECT_TRUE(test::throws_error([] { sort_on_cpu<std::int8_t>(nullptr, 3); }, "sort_on_cpu"));
  EXPECT_TRUE(test::throws_error([] { sort_host<__half>(nullptr, 3); }, "sort_host"));
  std::vector<std::uint16_t> keys = {3, 1, 2};
  const std::vector<std::uint16_t> before = keys;
  EXPECT_THROW(sort_on_cpu(keys.data(), keys.size(), {static_cast<order>(9)}), error);
  EXPECT_THROW(sort_host(keys.data(), keys.size(), {.algo = static_cast<algorithm>(42)}), error);
  EXPECT_EQ(keys, before);
  EXPECT_EQ(workspace_bytes<__nv_bfloat16>(1), 0u) << "nothing to sort, no device needed";
  if (!gpu_available()) {
    EXPECT_TRUE(test::throws_error([] { workspace_bytes<std::int16_t>(100); }, "no CUDA device"));
    std::int8_t one = 5;
    EXPECT_TRUE(test::throws_error([&] { sort(&one, 1); }, "bitonic::sort"))
        << "a host pointer is not device memory";
    EXPECT_TRUE(
        test::throws_error([] { batched_workspace_bytes<__half>(4, 100); }, "no CUDA device"));
    EXPECT_TRUE(test::throws_error([&] { sort_batched(&one, 1, 1); }, "bitonic::sort_batched"));
  }
  // The batched forms' checks come before any device work.
  EXPECT_EQ(batched_workspace_bytes<std::uint8_t>(0, 100), 0u);
  EXPECT_EQ(batched_workspace_bytes<std::uint8_t>(100, 1), 0u);
  EXPECT_TRUE(test::throws_error(
      [] { batched_workspace_bytes<std::int16_t>(std::size_t{1} << 40, std::size_t{1} << 40); },
      "batched_workspace_bytes"));
  EXPECT_TRUE(test::throws_error(
      [] { batched_workspace_bytes<std::int8_t>(4, 100, {.algo = algorithm::block_merge}); },
      "batched_workspace_bytes"));
  EXPECT_TRUE(test::throws_error(
      [&] { sort_batched(keys.data(), 1, 3, {.direction = static_cast<order>(9)}); },
      "options.direction"));
  EXPECT_EQ(keys, before);
}

}  // namespace
}  // namespace bitonic
