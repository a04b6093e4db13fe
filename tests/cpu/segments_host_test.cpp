// sort_segments_host against std::sort of every segment on its own (tools::reference_sort): on
// the CPU where there is no GPU (CI), through the device where there is one, and on the CPU again
// when opt.max_device_bytes leaves the device too little. Layouts: every length 0..300 shuffled,
// empty segments, one long segment among short ones, keys before the first offset and after the
// last untouched, 32- and 64-bit offsets; stable sorts bit for bit std::stable_sort; argument
// errors leave the keys untouched. Seeds: fixed, printed with every failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "common_test.hpp"

namespace bitonic {
namespace {

using test::same_bits;
using tools::distribution;

//! Segment lengths: every length 0..300 in a shuffled order, then one of 20000 keys.
std::vector<std::size_t> segment_lengths(std::uint64_t seed) {
  std::vector<std::size_t> lengths(301);
  std::iota(lengths.begin(), lengths.end(), std::size_t{0});
  std::mt19937_64 rng(seed);
  std::shuffle(lengths.begin(), lengths.end(), rng);
  lengths.insert(lengths.begin() + 150, 20000);
  return lengths;
}

template <class Key>
class SegmentsHost : public ::testing::Test {};
TYPED_TEST_SUITE(SegmentsHost, test::record_key_types, test::key_type_names);

template <class Key, class Offset>
void expect_segments_sorted(distribution d, order direction, bool stable, std::size_t budget) {
  const std::uint64_t seed = 9100 + test::key_type_index<Key>() * 16 + static_cast<unsigned>(d);
  const std::vector<std::size_t> lengths = segment_lengths(seed);
  constexpr std::size_t before = 5, after = 7;  // keys outside the segments
  std::vector<Offset> offsets{Offset(before)};
  for (const std::size_t length : lengths)
    offsets.push_back(Offset(offsets.back() + length));
  const std::size_t n = std::size_t(offsets.back()) + after;
  const std::vector<Key> input = tools::generate<Key>(n, d, seed);
  std::vector<Key> expected = input;
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i) {
    const auto begin = expected.begin() + std::ptrdiff_t(offsets[i]);
    const auto end = expected.begin() + std::ptrdiff_t(offsets[i + 1]);
    const std::vector<Key> segment(begin, end);
    if (stable) {
      std::vector<Key> sorted = segment;
      if (direction == order::ascending) {
        std::stable_sort(sorted.begin(), sorted.end(), ascending_less{});
      } else {
        std::stable_sort(sorted.begin(), sorted.end(), descending_less{});
      }
      std::copy(sorted.begin(), sorted.end(), begin);
    } else {
      const std::vector<Key> sorted = tools::reference_sort(segment, direction);
      std::copy(sorted.begin(), sorted.end(), begin);
    }
  }
  std::vector<Key> keys = input;
  options opt{direction};
  opt.stable = stable;
  opt.max_device_bytes = budget;
  sort_segments_host(keys.data(), offsets.data(), lengths.size(), opt);
  const std::string label = std::string(tools::type_name<Key>()) + " offsets of " +
                            std::to_string(sizeof(Offset) * 8) + " bits, distribution " +
                            std::string(tools::to_string(d)) + ", seed " + std::to_string(seed) +
                            ", " + std::string(test::to_string(direction)) +
                            (stable ? ", stable" : "") + ", budget " + std::to_string(budget);
  if (stable) {
    EXPECT_TRUE(same_bits(keys, expected)) << label;
    return;
  }
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i) {
    const auto at = [&](const std::vector<Key>& v, std::size_t j) {
      return std::vector<Key>(v.begin() + std::ptrdiff_t(offsets[j]),
                              v.begin() + std::ptrdiff_t(offsets[j + 1]));
    };
    ASSERT_TRUE(test::matches_reference(at(keys, i), at(expected, i)))
        << label << ", segment " << i;
  }
  EXPECT_TRUE(same_bits(std::vector<Key>(keys.begin(), keys.begin() + before),
                        std::vector<Key>(input.begin(), input.begin() + before)))
      << label << ": keys before the first offset";
  EXPECT_TRUE(same_bits(std::vector<Key>(keys.end() - after, keys.end()),
                        std::vector<Key>(input.end() - after, input.end())))
      << label << ": keys after the last offset";
}

// Budget 0: the device where there is one (all free memory); 1 byte: always the CPU.
TYPED_TEST(SegmentsHost, EverySegmentMatchesStdSort) {
  using Key = TypeParam;
  for (const std::size_t budget : {std::size_t{0}, std::size_t{1}}) {
    for (const distribution d : tools::all_distributions) {
      for (const order direction : test::all_orders) {
        expect_segments_sorted<Key, std::uint32_t>(d, direction, false, budget);
      }
    }
    for (const order direction : test::all_orders) {
      expect_segments_sorted<Key, std::uint64_t>(distribution::few, direction, false, budget);
      expect_segments_sorted<Key, std::uint64_t>(distribution::nan, direction, true, budget);
    }
  }
}

TEST(SegmentsHostErrors, BadArgumentsLeaveTheKeysAlone) {
  const std::vector<float> input = {3, 1, 2, 5, 4};
  std::vector<float> keys = input;
  const std::vector<std::uint32_t> decreasing = {0, 3, 2, 5};
  EXPECT_TRUE(
      test::throws_error([&] { sort_segments_host(keys.data(), decreasing.data(), 3); },
                         {"offsets decrease at segment 1", "h_offsets[2] = 2 < h_offsets[1] = 3"}));
  EXPECT_EQ(keys, input);
  EXPECT_TRUE(test::throws_error(
      [&] { sort_segments_host(keys.data(), static_cast<const std::uint64_t*>(nullptr), 2); },
      "h_offsets is null"));
  const std::vector<std::uint64_t> offsets = {0, 2, 5};
  EXPECT_TRUE(test::throws_error(
      [&] { sort_segments_host(static_cast<float*>(nullptr), offsets.data(), 2); }, "null"));
  options bad;
  bad.algo = algorithm::global_step;
  EXPECT_TRUE(test::throws_error([&] { sort_segments_host(keys.data(), offsets.data(), 2, bad); },
                                 "bitonic::sort_segments_host"));
  EXPECT_EQ(keys, input);
  // No segments, or only empty ones at 0: no keys, so null keys are allowed; empty segments
  // past 0 still need the keys before them.
  sort_segments_host(static_cast<float*>(nullptr), static_cast<const std::uint32_t*>(nullptr), 0);
  const std::vector<std::uint32_t> empty_at_zero = {0, 0, 0}, empty_at_three = {3, 3, 3};
  sort_segments_host(static_cast<float*>(nullptr), empty_at_zero.data(), 2);
  EXPECT_TRUE(test::throws_error(
      [&] { sort_segments_host(static_cast<float*>(nullptr), empty_at_three.data(), 2); }, "null"));
  sort_segments_host(keys.data(), offsets.data(), 2);
  EXPECT_EQ(keys, (std::vector<float>{1, 3, 2, 4, 5}));
}

}  // namespace
}  // namespace bitonic
