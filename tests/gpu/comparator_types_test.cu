// bitonic.cuh with an extended __device__ lambda on float keys (4 bytes: the key sort on the keys
// themselves, split into buckets past 2^24; by absolute value, so that x and -x are equivalent
// keys of different bits) and a 3-byte struct (a size the register tiles do not take: a sort of
// positions, then a gather), against std::sort with the same comparator. Seeds: test::case_seed(n,
// d).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bitonic/bitonic.cuh"
#include "common_test.hpp"
#include "device_memory.hpp"

namespace bitonic {
namespace {

using test::device_array;
using tools::distribution;

//! Sorted under `less` (the sort's direction applied) and the same multiset of bits as `input`.
template <class Key, class HostLess, class BitsLess>
void expect_sorted(const std::vector<Key>& input, const std::vector<Key>& got, HostLess less,
                   BitsLess by_bits, const std::string& label) {
  EXPECT_TRUE(std::is_sorted(got.begin(), got.end(), less)) << label;
  std::vector<Key> a = input, b = got;
  std::sort(a.begin(), a.end(), by_bits);
  std::sort(b.begin(), b.end(), by_bits);
  EXPECT_TRUE(
      std::equal(a.begin(), a.end(), b.begin(), b.end(),
                 [&](const Key& x, const Key& y) { return !by_bits(x, y) && !by_bits(y, x); }))
      << label << ": not the same keys";
}

const std::vector<std::size_t> lengths = {
    0, 1, 2, 5, 32, 1000, 16383, 16384, 16385, 65537, (1u << 20) + 3};

// Free functions around the lambdas: an extended lambda may not live in a test's private body.
void sort_floats_by_magnitude() {
  const auto by_magnitude = [] __device__(float a, float b) { return fabsf(a) < fabsf(b); };
  const auto host_less = [](float a, float b) { return std::fabs(a) < std::fabs(b); };
  const auto by_bits = [](float a, float b) {
    return std::signbit(a) < std::signbit(b) || (std::signbit(a) == std::signbit(b) && a < b);
  };
  std::vector<std::size_t> float_lengths = lengths;
  float_lengths.push_back((std::size_t{1} << 24) + 3);  // split into buckets (4-byte keys)
  for (const order direction : test::all_orders) {
    for (const std::size_t n : float_lengths) {
      for (const distribution d : {distribution::uniform, distribution::few, distribution::organ}) {
        std::vector<float> input = tools::generate<float>(n, d, test::case_seed(n, d));
        for (std::size_t i = 0; i < n; i += 3)
          input[i] = -input[i];  // x and -x are equivalent
        device_array<float> keys(n);
        keys.upload(input);
        sort(keys.get(), n, by_magnitude, {.direction = direction});
        const std::string label = "float by magnitude n=" + std::to_string(n) +
                                  " d=" + std::string(tools::to_string(d)) +
                                  (direction == order::descending ? " descending" : " ascending");
        const auto within = [&](float a, float b) {
          return direction == order::descending ? host_less(b, a) : host_less(a, b);
        };
        expect_sorted(input, keys.download(), within, by_bits, label);
      }
    }
  }
}

struct rgb {
  std::uint8_t r, g, b;
};
static_assert(sizeof(rgb) == 3, "a key size the register tiles do not take");

struct by_green {
  __host__ __device__ bool operator()(const rgb& x, const rgb& y) const { return x.g < y.g; }
};

TEST(ComparatorTypes, FloatsByMagnitudeThroughALambda) {
  sort_floats_by_magnitude();
}

TEST(ComparatorTypes, ThreeByteStructs) {
  const auto by_bits = [](const rgb& x, const rgb& y) {
    return std::tie(x.r, x.g, x.b) < std::tie(y.r, y.g, y.b);
  };
  for (const bool stable : {false, true}) {
    for (const std::size_t n : lengths) {
      const auto bytes = tools::generate<std::uint32_t>(n, distribution::uniform,
                                                        test::case_seed(n, distribution::uniform));
      std::vector<rgb> input(n);
      for (std::size_t i = 0; i < n; ++i)
        input[i] = {std::uint8_t(bytes[i]), std::uint8_t(bytes[i] >> 8),
                    std::uint8_t(bytes[i] >> 16)};
      device_array<rgb> keys(n);
      keys.upload(input);
      sort(keys.get(), n, by_green{}, {.stable = stable});
      const std::vector<rgb> got = keys.download();
      const std::string label = "rgb by green n=" + std::to_string(n) + (stable ? " stable" : "");
      if (stable) {
        std::vector<rgb> expected = input;
        std::stable_sort(expected.begin(), expected.end(), by_green{});
        EXPECT_TRUE(std::equal(
            got.begin(), got.end(), expected.begin(), expected.end(),
            [](const rgb& x, const rgb& y) { return x.r == y.r && x.g == y.g && x.b == y.b; }))
            << label;
      } else {
        expect_sorted(input, got, by_green{}, by_bits, label);
      }
    }
  }
}

}  // namespace
}  // namespace bitonic
